/* etm_dpi.h - the C model as a scoreboard for SystemVerilog testbenches, through
 * DPI-C. docs/dpi.md is the guide; tb/dpi/etm_dpi_pkg.sv declares every function
 * below with `import "DPI-C"`, and tb/dpi/etm_scoreboard.sv uses them.
 *
 * Types are the ones IEEE 1800 maps SystemVerilog's 2-state types to, so the
 * prototypes are exactly what a simulator generates for the package's imports
 * and no svdpi.h is needed:
 *
 *     chandle            void *
 *     string             const char *
 *     int                int
 *     int unsigned       unsigned int       (output: unsigned int *)
 *     longint unsigned   unsigned long long (output: unsigned long long *)
 *
 * A 4-state value (logic) given to a 2-state argument reads X and Z as 0, so the
 * caller also passes a mask saying which signals held X or Z ($isunknown); see
 * etm_dpi_step and etm_dpi_compare.
 *
 * One scoreboard, one handle (any number of them; nothing is shared):
 *
 *     h = etm_dpi_new("tb.u_sb");
 *     etm_dpi_preset(h, "etm-m3");            or etm_dpi_load(h, "config.txt")
 *     etm_dpi_set(h, "ETMCR=0x1810, FIFO_DEPTH=0x20");
 *     etm_dpi_start(h);                       validates the image, makes the model
 *     at every rising clock edge:
 *         reset held:       etm_dpi_reset(h)
 *         otherwise:        etm_dpi_step(h, inputs...) then etm_dpi_compare(h, outputs...)
 *         end of trace:     etm_dpi_end(h) (that edge has nothing to compare), then
 *                           per edge etm_dpi_drain(h) and, if it returned 1, etm_dpi_compare
 *     etm_dpi_summary(h), etm_dpi_failures(h)
 *     etm_dpi_free(h);
 *
 * The comparison contract: the inputs and the design's outputs given for an edge
 * are both the values just before that edge, the values the design's flip-flops
 * sample. The model's outputs for an edge are the outputs of the cycle that edge
 * ends (etm_step), so a design must present them in the same cycle, as the RTL
 * twin does. A design one cycle late shows up as mismatches, and the report says
 * so once the design has shown, three times in a row when the outputs changed,
 * the model's outputs of the cycle before.
 *
 * Cycles are counted from the last reset, from 0, one per edge: stepped edges,
 * the end-of-trace edge and drained edges, as in tb/cosim.
 *
 * Functions returning int return -1 for a call that is not allowed (bad
 * argument, wrong state); etm_dpi_error(h) then says why. The library never
 * prints and never aborts.
 */
#ifndef ETM_DPI_H
#define ETM_DPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Handles and the register image ----------------------------------------------- */

/* A new scoreboard named `name` in its messages (the SV instance path; NULL
 * or "" gives "etm"). Its register image starts as the preset "etm-m3".
 * NULL only when memory is exhausted. */
void *etm_dpi_new(const char *name);
void etm_dpi_free(void *h);

/* The register image from a preset ("etm-m3", "etmv1.3", ... as etm config
 * --presets lists), replacing the whole image. 0 or -1. */
int etm_dpi_preset(void *h, const char *preset);

/* The register image from a file, replacing the whole image: configuration text
 * (NAME=0xVALUE lines, may begin with "preset NAME") or the header of a vector
 * file. The error names the file and line. 0 or -1. */
int etm_dpi_load(void *h, const char *path);

/* Settings on top of the image: NAME=0xVALUE items separated by spaces, commas
 * or semicolons ("ETMCR=0x1810,FIFO_DEPTH=0x20"). The error names the item.
 * 0 or -1; on error the image is unchanged. */
int etm_dpi_set(void *h, const char *settings);

/* Output fields to leave out of the comparison, by name, separated as for
 * etm_dpi_set ("TRACEENABLE,VIEWDATA,VIOLATIONS" for a design without those
 * ports). 0 or -1 for an unknown name. */
int etm_dpi_ignore(void *h, const char *fields);

/* The design's checker reports rules 0 to bits-1 (VIOLATIONS[bits-1:0]); the
 * model's rules from `bits` on are not compared. The default is every rule the
 * model knows (ETM_RULE_COUNT, at most 64). 0 or -1. */
int etm_dpi_rule_bits(void *h, unsigned int bits);

/* The kind of check (before etm_dpi_start):
 *   "exact"             (the default) every output of every edge against the C
 *                       model's: for the project's RTL twin;
 *   "semantic"          the protocol scoreboard (etm/verify.h, docs/scoreboard.md):
 *                       the bytes the design hands over (V3COUNT lanes of ATDATA
 *                       at each edge) must say exactly what the core did, whatever
 *                       packing, compression, sync placement and latency the design
 *                       chose; for any ETMv3;
 *   "semantic:CYCLES"   ... and no instruction's bytes later than CYCLES after it.
 * In semantic mode etm_dpi_compare reads only V3COUNT and ATDATA (a design
 * with ATVALID/ATREADY gives V3COUNT = ATVALID && ATREADY ? its byte count :
 * 0), returns 1 at the first divergence, and the drain edges run until the
 * design has given no byte for 64 edges; the implementation choices FIFO_DEPTH,
 * FIFO_WRITE, BRANCH_FULL, PH_EAGER and PORT_BYTES are not held to the image
 * by etm_dpi_check_reg. 0 or -1 (unknown mode). */
int etm_dpi_mode(void *h, const char *mode);

/* Semantic mode: the design's ETMSR[0] read after the drain (1: an overflow
 * whose restart I-sync never came; the instructions after the last one traced
 * were lost, not left out). Call it before etm_dpi_summary. 0 or -1. */
int etm_dpi_untraced_overflow(void *h, int flag);

/* Validate the image (etm_config_validate, etm_model_supports) and create the
 * model as the design comes out of reset (etm_create_at_reset): the image gives
 * the implementation (ETMCCR, ETMIDR, ETMCCER, ETMSCR, the model parameters);
 * the other registers are programmed through the debug APB, whose cycles the
 * scoreboard steps too. Afterwards the image can no longer change. An external port
 * (PORT_BYTES=0), whose bytes leave at another clock, is refused: the
 * scoreboard compares the port edge by edge. 0 or -1. */
int etm_dpi_start(void *h);

/* The architecture's programming sequence for the image (etm_program_ops), for
 * a testbench to drive over the design's APB: returns the number of operations
 * (or -1). Then operation i: kind 0 write, 1 read, 2 poll (read again until
 * (PRDATA & mask) == value), 3 one idle cycle; the byte offset, the value, the mask and PADDRDBG31.
 * 0 or -1. Only before etm_dpi_start, on an image handle. */
int etm_dpi_program(void *h);
int etm_dpi_program_op(void *h, int i, int *kind, unsigned int *offset, unsigned int *value, unsigned int *mask,
                       int *debugger);

/* The value of one register or model parameter of the image ("ETMCR",
 * "ETMACVR3", "FIFO_DEPTH"), e.g. to program the design with it. 0 or -1. */
int etm_dpi_reg(void *h, const char *name, unsigned int *value);

/* The design's value of one register (e.g. its configuration port) against the
 * image. 0 equal, 1 different (counted as a failure, text in etm_dpi_report),
 * -1 for an unknown name. */
int etm_dpi_check_reg(void *h, const char *name, unsigned int value);

/* Text of the last error (a call that returned -1); "" if none. */
const char *etm_dpi_error(void *h);

/* ---- Per clock edge ----------------------------------------------------------------- */

/* The reset state (etm_reset), cycle count back to 0. Call it at every edge
 * (or the asynchronous assertion) of the design's reset. 0 or -1. */
int etm_dpi_reset(void *h);

/* Bits of the step's report and of the `unknown` input mask. */
#define ETM_DPI_NOTE_RULE 1    /* the inputs broke an interface rule (docs/interface.md) */
#define ETM_DPI_NOTE_UNKNOWN 2 /* a qualified input was X or Z: the model saw 0 (a failure) */

/* DPI argument types of the signals (etm/signals.def): up to 32 bits an
 * "int unsigned", above a "longint unsigned". */
#define ETM_DPI_T_uint8_t unsigned int
#define ETM_DPI_T_uint16_t unsigned int
#define ETM_DPI_T_uint32_t unsigned int
#define ETM_DPI_T_uint64_t unsigned long long

/* One rising edge with these inputs (the values before the edge). Arguments are
 * the ports of the RTL top level, one per input of etm/signals.def in its
 * order (ivalid, ibranch, ..., dd), each of them the port's value: ia and ia1
 * are ETMIA[31:1] and ETMIA1[31:1], i.e. the address shifted right by one.
 * `unknown` has bit i set when argument i held X or Z. An unknown input whose
 * qualifier is known to be off (ETMIA while ETMIVALID=0, ETMDD while DDSlot=0,
 * ...) is accepted; any other is a failure. Returns -1 (a value wider than its
 * port, before start, after end), or the ETM_DPI_NOTE_* bits of what
 * etm_dpi_report now describes (0: nothing). */
int etm_dpi_step(void *h,
#define ETM_IN(field, name, width, lsb, ctype, part, doc) ETM_DPI_T_##ctype field,
#include "etm/signals.def"
                 unsigned int unknown);

/* End of trace at this edge (etm_end): what is being gathered goes into the
 * FIFO; the edge has no outputs to compare. 0 or -1. */
int etm_dpi_end(void *h);

/* One edge after the end: 1 when the model modelled a cycle (compare it), 0 when
 * nothing was left to drain (the trace is complete; nothing to compare), -1. */
int etm_dpi_drain(void *h);

/* Output fields, in the order of etm_dpi_compare's arguments and of the bits of
 * its `unknown` mask: the RTL top level's output ports (etm/signals.def), then
 * VIOLATIONS. ETM_DPI_FIELD_PIPESTAT etc. */
enum {
#define ETM_OUT(field, name, width, ctype, where, doc) ETM_DPI_FIELD_##name,
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) \
    ETM_DPI_FIELD_##countname, ETM_DPI_FIELD_##dataname,
#include "etm/signals.def"
    ETM_DPI_FIELD_VIOLATIONS,
    ETM_DPI_FIELD_COUNT
};

/* The model's value of an output field for the last modelled edge (by name,
 * a port name as in the enumeration above), or 0 for an unknown name
 * (etm_dpi_error says so). */
unsigned long long etm_dpi_expected(void *h, const char *field);

/* The design's outputs for the edge just stepped or drained, against the
 * model's. v3_bytes (ATDATA) holds the V3COUNT bytes oldest in bits [7:0]; only the byte
 * lanes that the model's or the design's V3COUNT makes valid are compared (the
 * others carry no trace). violations: bit r set when
 * the design's checker found interface rule r (etm_rule_t) broken; see
 * etm_dpi_rule_bits. `unknown`:
 * bit i (ETM_DPI_FIELD_*) set when that output held X or Z, a mismatch whatever
 * its value. Returns the number of differing fields (0: the cycle matches; the
 * text is in etm_dpi_report) or -1 when there is no modelled edge to compare
 * (one compare per step or drain that returned 1). */
int etm_dpi_compare(void *h,
#define ETM_OUT(field, name, width, ctype, where, doc) ETM_DPI_T_##ctype field,
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) \
    unsigned int count, unsigned long long bytes,
#include "etm/signals.def"
                    unsigned long long violations, unsigned int unknown);

/* ---- Reports -------------------------------------------------------------------- */

/* What the last etm_dpi_step, etm_dpi_compare or etm_dpi_check_reg found, as
 * lines of text, starting "NAME: cycle N: "; "" when it found nothing. */
const char *etm_dpi_report(void *h);

/* Cycle number of the last modelled edge (since the last reset). */
unsigned long long etm_dpi_cycle(void *h);

/* Failures so far: cycles with a mismatch, cycles with an unknown qualified
 * input, configuration registers that differ. 0 means the test passed. */
unsigned long long etm_dpi_failures(void *h);

/* Cycles compared so far (over all resets). */
unsigned long long etm_dpi_compared(void *h);

/* A few lines: cycles compared, failures of each kind, first and last
 * mismatching cycle, mismatches per field, interface rule violations, and the
 * verdict (PASS, or FAIL with the reason, e.g. nothing compared). */
const char *etm_dpi_summary(void *h);

/* ---- Stimulus sources for testbenches ------------------------------------------- */

/* A stimulus source (etm/stim.h): a vector file (vectors/README.md), a VCD, a
 * records file of executed instructions (etm-qemu record) through the
 * Cortex-M3 timing model, or the seeded generator of a random Cortex-M3 program
 * (etm/gen.h). Same handle pattern and -1/error convention; errors name the
 * file and line. A handle with nothing opened gives idle records. */
void *etm_dpi_stim_new(void);
void etm_dpi_stim_free(void *s);
const char *etm_dpi_stim_error(void *s);

int etm_dpi_stim_vectors(void *s, const char *path);
int etm_dpi_stim_vcd(void *s, const char *path);
int etm_dpi_stim_records(void *s, const char *path);

/* Generate `cycles` cycles: seed, issue width (1 or 2), data slot traffic (0/1),
 * DWT triggers (0/1), mean cycles between exceptions (0: none). 0 or -1. */
int etm_dpi_stim_generate(void *s, unsigned long long seed, unsigned long long cycles,
                          unsigned int issue_width, unsigned int data, unsigned int triggers,
                          unsigned int irq_period);

/* ATB back-pressure in the next etm_dpi_stim_generate: the trace sink holds
 * ATREADY low stall_pct percent of the cycles (0-99), in bursts of `burst`
 * cycles on average. 0 or -1. */
int etm_dpi_stim_atb(void *s, unsigned int stall_pct, unsigned int burst);

/* The next cycle's inputs, in etm_dpi_step's order and encoding. hold: the
 * design's FIFOFULL in the cycle before; the generator and the timing model
 * then hold the core (ETMISTALL), recordings cannot. 1: a cycle, 0: the
 * stimulus has ended (outputs are 0), -1: a malformed line (etm_dpi_stim_error). */
int etm_dpi_stim_next(void *s, unsigned int hold
#define ETM_IN(field, name, width, lsb, ctype, part, doc) , ETM_DPI_T_##ctype *field
#include "etm/signals.def"
);

#ifdef __cplusplus
}
#endif
#endif
