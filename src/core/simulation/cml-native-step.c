/* cml-native-step.c — the C source of a system's whole DOP853 step: the step of
 * cml-dop853-core.h around the system's right-hand side, inlined; and likewise of its rk8pd
 * step (cml-rk8pd-core.h, GSL's step and control, whose numbers it gives bit for bit).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The source is
 *
 *   <cml-pivot-check-core.h>                    the check sim_rhs makes of the pivots
 *   <cml-dop853-core.h>                         its types
 *   static inline void cml_dop853_rhs (…)        the right-hand side (cml_program_emit_c)
 *   #define DOP_N <dim>                         the dimension, a constant
 *   <cml-dop853-core.h>                         the step, the same text the library compiles
 *   int cml_dop853_step (…)                     the exported entry point
 *
 * compiled with cml-native.c's flags (no contraction, libm calls kept), so that it gives
 * the numbers of the library's generic step with the right-hand side through its callback.
 */
#define G_LOG_DOMAIN "cml-native"

#include "cml-native-step.h"

#include "cml-dop853-core-text.h"
#include "cml-pivot-check-core-text.h"
#include "cml-rk8pd-core-text.h"

#include <string.h>


/* The components the right-hand side reads, as the array NAME (of the size the macro SIZE
 * gives) and the macro MACRO (I); nothing when it reads them all (the macro's default, 1). */
static void
append_reads (const CmlProgram *rhs_prog, guint dim, const char *name, const char *size,
              const char *macro, GString *s)
{
  guint n_in = cml_program_n_fast_inputs (rhs_prog);
  g_autofree guint8 *read = g_new0 (guint8, MAX (n_in, 1 + dim));
  gboolean all = TRUE;

  cml_program_inputs_read (rhs_prog, read);
  for (guint i = 0; i < dim; i++)
    all = all && read[1 + i];
  if (all)
    return;
  g_string_append_printf (s, "static const unsigned char %s[%s] = {", name, size);
  for (guint i = 0; i < dim; i++)
    g_string_append (s, i ? (read[1 + i] ? ", 1" : ", 0") : (read[1 + i] ? " 1" : " 0"));
  g_string_append_printf (s, " };\n#define %s(I) %s[I]\n", macro, name);
}

/* What sets one step's source apart: its name in words, its identifier ID (the functions
 * cml_ID_rhs, cml_ID_step_inline and the exported cml_ID_step), the prefix of the
 * core's macros (PREFIX_STEP_FN, _N, _READS, _EXTRA_PARAMS, _RHS), the step's type, the
 * core's text, and the fields of the step's type that hold the end of a step taken. */
typedef struct
{
  const char *title, *id, *prefix, *step_type, *core, *t_field, *z_field;
} StepText;

/* The source of a step: the types (written by TYPES), the right-hand side as a static
 * inline function, the pivot check, the macros the core reads, the core, the projection
 * (PROJECTION), the entry point. */
static gboolean
step_source (const CmlProgram *rhs_prog, guint dim, const char *projection, const StepText *t,
             gboolean (*types) (GString *s), GString *s)
{
  g_return_val_if_fail (rhs_prog != NULL && projection != NULL && s != NULL && dim > 0, FALSE);

  g_autofree char *lower = g_ascii_strdown (t->prefix, -1);
  g_autofree char *rhs_name = g_strdup_printf ("cml_%s_rhs", t->id);
  g_autofree char *reads = g_strdup_printf ("%s_reads", lower);
  g_autofree char *n_macro = g_strdup_printf ("%s_N", t->prefix);
  g_autofree char *reads_macro = g_strdup_printf ("%s_READS", t->prefix);
  /* the exported function's parameters, aligned under its parenthesis */
  g_autofree char *pad_decl = g_strnfill (strlen ("int cml__step (") + strlen (t->id), ' ');
  g_autofree char *pad_def = g_strnfill (strlen ("cml__step (") + strlen (t->id), ' ');

  g_string_append_printf (s, "/* cmlab: the whole %s step, generator version %d */\n\n", t->title,
                          CML_NATIVE_STEP_VERSION);
  if (!types (s))
    return FALSE;
  g_string_append (s, "\nstatic inline ");
  if (!cml_program_emit_c (rhs_prog, rhs_name, dim, dim, s))
    return FALSE;
  g_string_append_printf (s, "#define %s_STEP_FN cml_%s_step_inline\n", t->prefix, t->id);
  g_string_append_printf (s, "#define %s %u\n", n_macro, dim);
  /* the components the right-hand side reads: the others' stage arguments are not needed */
  append_reads (rhs_prog, dim, reads, n_macro, reads_macro, s);
  g_string_append_printf (s,
                          "#define %s_EXTRA_PARAMS , const double *aux, const double *R, double *o1, "
                          "const CmlDop853Pivots *pc\n"
                          "#define %s_RHS(T, Z, DZ) (%s ((T), (Z), aux, R, (DZ), o1), "
                          "cml_dop853_check ((DZ), o1, pc))\n\n",
                          t->prefix, t->prefix, rhs_name);
  /* the core again, now with the step's name defined: the step itself */
  g_string_append (s, t->core);
  g_string_append (s, projection);
  g_string_append_printf (s,
                          "\nint cml_%s_step (%s *s, const double *aux, const double *R, double *o1,\n"
                          "%sconst CmlDop853Pivots *pc, CmlProjectFused *pj);\n"
                          "int\n"
                          "cml_%s_step (%s *s, const double *aux, const double *R, double *o1,\n"
                          "%sconst CmlDop853Pivots *pc, CmlProjectFused *pj)\n"
                          "{\n"
                          "  int r = cml_%s_step_inline (s, aux, R, o1, pc);\n"
                          "#ifdef CML_PJ_FUSED_FN\n"
                          "  if (r == 0 && pj)\n"
                          "    cml_pj_fused (s->%s, s->%s, pj);\n"
                          "#endif\n"
                          "  return r;\n"
                          "}\n",
                          t->id, t->step_type, pad_decl, t->id, t->step_type, pad_def, t->id, t->t_field,
                          t->z_field);
  return TRUE;
}

/* DOP853's types: the pivots' (and their check), then the core's text without the step. */
static gboolean
dop853_types (GString *s)
{
  g_string_append (s, cml_pivot_check_core_text);
  g_string_append (s, cml_dop853_core_text);
  return TRUE;
}

gboolean
cml_native_step_dop853_source (const CmlProgram *rhs_prog,
                               guint             dim,
                               const char       *projection,
                               GString          *s)
{
  static const StepText t = { "DOP853", "dop853", "DOP", "CmlDop853Step", cml_dop853_core_text, "t", "z" };
  return step_source (rhs_prog, dim, projection, &t, dop853_types, s);
}

/* rk8pd's types: the pivots' and the step's. */
static gboolean
rk8pd_types (GString *s)
{
  g_string_append (s, cml_pivot_check_core_text);
  g_string_append (s, cml_rk8pd_core_text);
  return TRUE;
}

gboolean
cml_native_step_rk8pd_source (const CmlProgram *rhs_prog,
                              guint             dim,
                              const char       *projection,
                              GString          *s)
{
  static const StepText t = { "rk8pd", "rk8pd", "RK", "CmlRk8pdStep", cml_rk8pd_core_text, "t", "y" };
  return step_source (rhs_prog, dim, projection, &t, rk8pd_types, s);
}
