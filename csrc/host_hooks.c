/* Hooks into the host process that Rust cannot express on stable: a weak reference to
 * `set_membw_throttle(int)`, which Curio's cuzk engine defines (its synthesis threads back off
 * while the flag is set, so they do not fight the CPU G2 MSM for memory bandwidth). Hosts that
 * do not define it link and run unchanged: the reference stays NULL. */
#include <stddef.h>

extern void set_membw_throttle(int value) __attribute__((weak));

/* Whether the host defines set_membw_throttle. */
int groth16_c2_host_has_membw_throttle(void) { return set_membw_throttle != NULL; }

/* Calls the host's set_membw_throttle(value) when it has one; otherwise does nothing. */
void groth16_c2_host_membw_throttle(int value) {
    if (set_membw_throttle != NULL) {
        set_membw_throttle(value);
    }
}
