// A ticket counter shared by the GPUs of one host (launcher: tickets.py): one
// thread takes the next ticket of a call, *out = 0, 1, 2, ... in the order
// the ranks ask, whatever GPU holds the counter (a peer's memory over
// NVLink, opened through CUDA IPC: system-scope atomics). The 64-bit word
// holds (epoch << 32) | tickets taken: the first ticket of a newer epoch (a
// new call; every rank numbers its calls alike) restarts the count, so no
// rank has to reset it between calls.
extern "C" __global__ void take_ticket(unsigned long long* counter, unsigned long long epoch,
                                       volatile unsigned long long* out)
{
    unsigned long long seen = *(volatile unsigned long long*)counter;
    for (;;) {
        unsigned long long taken = (seen >> 32) == epoch ? (seen & 0xffffffffull) : 0ull;
        unsigned long long want = (epoch << 32) | (taken + 1ull);
        unsigned long long was = atomicCAS_system(counter, seen, want);
        if (was == seen) {
            *out = taken;
            __threadfence_system();
            return;
        }
        seen = was;
    }
}
