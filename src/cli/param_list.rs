//! `--by` and `--ignore`: comma-separated workload parameters, parsed, refused by name, and offered to shell completion.

/// Workload parameters named on the command line (`--by direct,sync`,
/// `--ignore engine`): as written, and the result-file fields they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamList {
    /// The list as the user wrote it, for messages.
    pub text: String,
    /// The parameters' names, trimmed, in the order given.
    pub names: Vec<String>,
    /// Their result-file field names, in the same order.
    pub fields: Vec<String>,
}

/// Parses `--by` and `--ignore` ([`param_list`]) and offers each
/// parameter's name to shell completion (`compare --by <Tab>`).
#[derive(Clone, Copy)]
pub(super) struct ParamListParser;

impl clap::builder::TypedValueParser for ParamListParser {
    type Value = ParamList;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<ParamList, clap::Error> {
        let text = value.to_string_lossy();
        param_list(&text).map_err(|reason| {
            let flag = arg.and_then(clap::Arg::get_long).unwrap_or("by");
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("invalid value '{text}' for '--{flag} <PARAMS>': {reason}\n"),
            )
            .with_cmd(command)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(crate::plan::param::Param::ALL.iter().map(
            |param| clap::builder::PossibleValue::new(param.name()),
        )))
    }
}

/// A comma-separated list of workload parameters, each refused by name
/// when it is not one.
fn param_list(text: &str) -> Result<ParamList, String> {
    let mut list = ParamList {
        text: text.to_string(),
        names: Vec::new(),
        fields: Vec::new(),
    };
    for name in text.split(',').map(str::trim) {
        let param = crate::plan::param::Param::from_name(name)
            .ok_or_else(|| format!("'{name}' is not a parameter"))?;
        list.names.push(name.to_string());
        list.fields.push(param.field().to_string());
    }
    Ok(list)
}
