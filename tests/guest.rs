//! The guest tier: QEMU guests booted under TCG, alone or beside their host.

#[path = "distributed_guest.rs"]
mod distributed_guest;
#[path = "guest_stacks.rs"]
mod guest_stacks;
#[path = "guests.rs"]
mod guests;
