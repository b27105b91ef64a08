/* cml-native.h — the fast code of register programs as native machine code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A program's fast code is written out as C (cml_program_emit_c), compiled once by the
 * system's C compiler into a shared object kept in a cache and loaded with dlopen.  The
 * native function computes bit for bit what the interpreter computes; it is an
 * acceleration only, and everything works without it (no compiler, CMLAB_NATIVE=0).
 */
#pragma once

#include <glib.h>

#include "cml-expr.h"
#include "cml-program.h"

G_BEGIN_DECLS

/* Fast inputs are split as the simulation lays them out: input 0 is T, inputs 1 … n_state
 * are Z, the rest AUX.  R is the register file cml_program_prepare() filled (constants and
 * slow values).  Outputs [0, n_out0) go to O0, the rest to O1. */
typedef void (*CmlNativeFunc) (double t, const double *z, const double *aux, const double *R,
                               double *o0, double *o1);

/* A system's projection in native code (cml-project-core.h, cml-system-native.c): Z
 * projected in place at time T; OUT receives h and its Jacobian, A and B are scratch of
 * k² and k doubles; returns the core's code (0 on the constraint set), *RESID set with 3. */
typedef int (*CmlNativeProjectFunc) (double t, double *z, const double *aux, const double *R,
             double *out, double *A, double *b, double *resid);

/* Appends a C function NAME computing PROG's fast code and outputs.  FALSE when the
 * program cannot be written out (never for programs of cml_program_compile).  A large
 * program is written as NAME_part0, NAME_part1, … (static) called by NAME, its prototype
 * first: those store the values a later part reads in their own registers' places in R,
 * which must therefore be the caller's own register file of cml_program_n_registers()
 * doubles, not shared with another thread — as for cml_program_run(). */
gboolean cml_program_emit_c (const CmlProgram *prog,
                             const char       *name,
                             guint             n_state,
                             guint             n_out0,
                             GString          *s);

/* The register that holds output I of PROG after cml_program_run(), and whether it changes
 * with the fast inputs (FALSE: cml_program_prepare() already computed it). */
guint cml_program_output_register (const CmlProgram *prog, guint i, gboolean *fast);

typedef struct _CmlNative CmlNative;

/* Whether native code may be used: a C compiler was found ($CMLAB_CC, else cc or gcc on
 * PATH) and $CMLAB_NATIVE is not "0".  Read once per process. */
gboolean       cml_native_available (void);
/* The compiler command, or NULL. */
const char    *cml_native_compiler (void);

/* Compiles SOURCE (or finds it in the cache: $CMLAB_NATIVE_CACHE, else
 * $XDG_CACHE_HOME/cmlab/native, keyed by a SHA-256 of the compiler, its flags and SOURCE)
 * and loads it. */
CmlNative     *cml_native_build  (const char *source, GError **error);
/* Appends a C source to S; FALSE when it cannot be written. */
typedef gboolean (*CmlNativeSource) (gpointer data, GString *s);
/* cml_native_build (SOURCE (DATA)), but the object is first looked for by KEY — a text
 * that fixes the source for this build of cmlab (a derived system's cache entry and what
 * the object is for, cml-system-cache.c) — in a memo beside the objects that names the
 * object the source made last time: then the source is neither written nor hashed.  The
 * memo is trusted only when the object's record lists KEY, which it does once KEY's source
 * was made and found to be the object's (cml-native.c).  KEY NULL: no memo. */
CmlNative     *cml_native_build_keyed (const char *key, CmlNativeSource source, gpointer data,
                                       GError **error);
/* Only what the cache holds, never the compiler: cml_native_build_keyed ()'s object when
 * it is there; otherwise NULL — with *ERROR set when the source could not be written or
 * the cache not opened, else with the source written (when the memo did not spare it) in
 * *SOURCE_OUT, for cml_native_build_later (). */
CmlNative     *cml_native_find_keyed (const char *key, CmlNativeSource source, gpointer data,
                                      GString **source_out, GError **error);
/* Only the memo of KEY: the object it names when the cache holds it, else NULL (no source
 * written, no error unless the cache cannot be opened). */
CmlNative     *cml_native_find_memo (const char *key, GError **error);
/* cml_native_build ()'s object when the cache holds it, else NULL (*ERROR set only when
 * the cache cannot be opened or there is no compiler). */
CmlNative     *cml_native_find (const char *source, GError **error);
/* Another handle on the same loaded object, freed apart. */
CmlNative     *cml_native_dup (const CmlNative *native);
CmlNativeFunc  cml_native_lookup (CmlNative *native, const char *name);
/* Whether the last cml_native_build() found its object in the cache. */
gboolean       cml_native_was_cached (const CmlNative *native);
const char    *cml_native_path   (const CmlNative *native);
void           cml_native_free   (CmlNative *native);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlNative, cml_native_free)

/* ---- tiered evaluation: objects compiled in the background (cml-native-queue.c) ---- */

/* Whether an object missing from the cache is compiled in the background while the
 * interpreter runs (the default), or before the run goes on ($CMLAB_NATIVE=wait). */
gboolean       cml_native_in_background (void);

typedef struct _CmlNativeJob CmlNativeJob;
/* Compiles SOURCE (taken) into the cache on the background worker, as
 * cml_native_build_keyed (KEY, …) would (KEY may be NULL: cml_native_build ()).  The job
 * belongs to the caller, who polls it; the compile goes on if the caller lets go of it. */
CmlNativeJob  *cml_native_build_later (const char *key, char *source);
/* The same, the source written on the worker by SOURCE (DATA) — which must be safe to
 * run there, on data that does not change — when the memo of KEY does not name the object
 * (cml_native_build_keyed); DESTROY (DATA) after.  A source too large to hash in the
 * foreground costs the caller nothing then. */
CmlNativeJob  *cml_native_build_keyed_later (const char *key, CmlNativeSource source, gpointer data,
                                             GDestroyNotify destroy);
/* Whether JOB ended (a full barrier: what it made is visible once this says TRUE). */
gboolean       cml_native_job_done (CmlNativeJob *job);
/* After JOB ended: the object (the caller's), or NULL with the reason in *ERROR. */
CmlNative     *cml_native_job_steal (CmlNativeJob *job, char **error);
void           cml_native_job_unref (CmlNativeJob *job);
/* Counts the background builds that ended: a simulation that saw another count than
 * this one looks again for what it lacks. */
guint          cml_native_generation (void);
/* Waits until every background build asked for so far has ended. */
void           cml_native_wait (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlNativeJob, cml_native_job_unref)

G_END_DECLS
