// A stream gate for kernel timing (launcher: timing.py): one thread holds
// its stream until the host sets *flag (mapped pinned memory), so that the
// start event, the timed launch and the stop event are all queued before
// the GPU reaches them: the events then measure the GPU's time alone, not
// the host's launch overhead (Python argument handling can exceed a short
// kernel's run). Gives up after limit_ns, so a lost flag cannot hang.
extern "C" __global__ void stream_gate(const volatile unsigned int* flag,
                                       unsigned long long limit_ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (*flag == 0u && t - t0 < limit_ns);
}
