/*
 * The program of "I/O Measurements" (2017), O_DIRECT against normal random
 * I/O, written again in C for bench/agreement: the same open flags, the same
 * 131,072-byte buffer of 'X' (88), the same rand() % chunks offsets and one
 * timed loop per run, opened and closed around it. Two things differ, on
 * purpose: the buffer is aligned to 4096 bytes (the original's `new char[]`
 * gets glibc malloc's 16-byte alignment, not the 512 bytes O_DIRECT needs
 * here, so on Linux its direct I/O would fail with EINVAL), and every
 * return value is checked (the original checks none inside the loop: a
 * failed pwrite returns at once, which fits its starred "something went
 * probably wrong" rows, 0.112 s and 0.041 s for 2 GB).
 *
 *   odirect-study read|write simple|direct FILE CHUNKS RUNS SEED
 *
 * Prints one line per run: the run's time in seconds (CLOCK_MONOTONIC
 * around the loop only, as the study's Measure class around its loop).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUF_BYTES 131072

static void fail(const char *what, long long detail) {
    fprintf(stderr, "odirect-study: %s (%lld): %s\n", what, detail, strerror(errno));
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: odirect-study read|write simple|direct FILE CHUNKS RUNS SEED\n");
        return 2;
    }
    int reading = strcmp(argv[1], "read") == 0;
    int direct = strcmp(argv[2], "direct") == 0;
    const char *file = argv[3];
    long long chunks = atoll(argv[4]);
    long runs = atol(argv[5]);
    srand((unsigned)atol(argv[6]));
    if (chunks <= 0 || runs <= 0) {
        fprintf(stderr, "odirect-study: CHUNKS and RUNS must be positive\n");
        return 2;
    }
    int mode = reading ? (O_RDONLY | O_SYNC) : (O_WRONLY | O_CREAT | O_SYNC);
    if (direct)
        mode |= O_DIRECT;
    char *buffer;
    if (posix_memalign((void **)&buffer, 4096, BUF_BYTES) != 0)
        fail("posix_memalign", BUF_BYTES);
    memset(buffer, 88, BUF_BYTES);
    for (long run = 0; run < runs; run++) {
        int fd = open(file, mode, 0644);
        if (fd == -1)
            fail("open", run);
        struct timespec start, stop;
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (long long i = 0; i < chunks; i++) {
            off_t offset = (off_t)(rand() % chunks) * BUF_BYTES;
            ssize_t done = reading ? pread(fd, buffer, BUF_BYTES, offset)
                                   : pwrite(fd, buffer, BUF_BYTES, offset);
            if (done != BUF_BYTES)
                fail(reading ? "pread short or failed at offset" : "pwrite short or failed at offset",
                     (long long)offset);
        }
        clock_gettime(CLOCK_MONOTONIC, &stop);
        if (close(fd) == -1)
            fail("close", run);
        printf("%.6f\n", (double)(stop.tv_sec - start.tv_sec) + (stop.tv_nsec - start.tv_nsec) / 1e9);
    }
    free(buffer);
    return 0;
}
