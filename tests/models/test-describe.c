/* test-describe.c — the account of a system that `cmlab-cli info` prints says each thing
 * once and in its simplest form: no factor 1 left over from rounding, no line "u1 = u1".
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-describe"

#include "physics-util.h"

/* W = [[1, −1], [−1, 1]]: ker W = span{(1, 1)}, which an SVD returns as (1, 1)/√2.
 * R = (v − x, −y − u), so the primary constraint is (1, 1)·R = 0: u − v + x + y = 0. */
static const char rotated_kernel[] =
  "[model]\nname = rotated\ntitle = a kernel of W off the axes\n\n"
  "[algebroid]\nbase = x, y\nfibre = u, v\n\n[anchor]\ne1 = x: 1\ne2 = y: 1\n\n"
  "[dynamics]\nlagrangian = (u - v)^2/2 - (x^2 + y^2)/2 + x*v\n";

static CmlSystem *
system_from_text (const char *text, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, name, &error);
  g_assert_no_error (error);
  CmlSystem *sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sys);
  return sys;
}

/* Whether TEXT has a number 1 standing alone as a factor: "1*u", "(1*y", " 1u", "−1(". */
static gboolean
has_unit_factor (const char *text)
{
  for (const char *p = text; *p; p++)
    {
      if (*p != '1')
        continue;
      gboolean starts = p == text || strchr (" (,{-", p[-1]) != NULL
                        || (p - text >= 3 && strncmp (p - 3, "−", 3) == 0);
      if (!starts)
        continue;
      if (p[1] == '*' || g_ascii_isalpha (p[1]) || p[1] == '(' || ((guchar) p[1] >= 0xc0 && strncmp (p + 1, "×", 2) != 0))
        return TRUE;
    }
  return FALSE;
}

static void
test_kernel_exact (void)
{
  g_autoptr (CmlSystem) sys = system_from_text (rotated_kernel, "rotated.cml");
  g_autofree char *plain = cml_system_describe (sys);
  g_autofree char *readable = cml_system_describe_readable (sys);

  g_test_message ("%s", plain);
  g_assert_nonnull (strstr (plain, "ker W = span{(1, 1)}"));
  g_assert_nonnull (strstr (plain, "primary constraint: u - v + x + y = 0"));
  g_assert_false (has_unit_factor (plain));
  g_assert_false (has_unit_factor (readable));
}

static void
test_vakonomic_no_trivial_lines (void)
{
  /* W1 relations nonlinear in the free velocities (tests/models/data/nonlinear-vakonomic.cml):
   * solved by Newton's method, so the free velocities are their own state */
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "models", "data", "nonlinear-vakonomic.cml", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autofree char *plain = cml_system_describe (sys);
  g_autofree char *readable = cml_system_describe_readable (sys);

  g_test_message ("%s", plain);
  g_assert_null (strstr (plain, "u1 = u1\n"));
  g_assert_null (strstr (plain, "u2 = u2\n"));
  g_assert_null (strstr (readable, "u₁ = u₁\n"));
  /* the constrained velocity is still given, and the free ones are said to be solved for */
  g_assert_nonnull (strstr (plain, "u3 = u2*x1\n"));
  g_assert_nonnull (strstr (plain, "u1, u2: solved from the W1 relations"));
}

/* L = u²/2 + x y: the constraint algorithm runs four levels deep (x = 0, u = 0, y = 0,
 * v = 0), and each level is named as it is: secondary, tertiary, quaternary. */
static const char constraint_chain[] =
  "[model]\nname = chain\ntitle = four levels of constraints\n\n"
  "[algebroid]\nbase = x, y\nfibre = u, v\n\n[anchor]\ne1 = x: 1\ne2 = y: 1\n\n"
  "[dynamics]\nlagrangian = u^2/2 + x*y\n\n[initial]\nx = 0\ny = 0\nu = 0\nv = 0\n";

static void
test_constraint_levels (void)
{
  CmlSystem *sys = system_from_text (constraint_chain, "chain");
  g_autofree char *text = cml_system_describe_readable (sys);

  g_assert_nonnull (strstr (text, "primary constraint: x = 0"));
  g_assert_nonnull (strstr (text, "secondary constraint from d/dt (x) = 0: u = 0"));
  if (!strstr (text, "tertiary constraint from d/dt (u) = 0: y = 0")
      || !strstr (text, "quaternary constraint from d/dt (y) = 0: v = 0"))
    g_error ("the levels of the constraints are not named:\n%s", text);
  cml_system_unref (sys);
}

/* The "Kind:" line of SYS's account, without "Kind: " and the line break. */
static char *
kind_line (const CmlSystem *sys)
{
  g_autofree char *text = cml_system_describe_readable (sys);
  const char *kind = strstr (text, "\nKind: ");
  g_assert_nonnull (kind);
  kind += strlen ("\nKind: ");
  return g_strndup (kind, strcspn (kind, "\n"));
}

/* The "Kind:" line says when the equations have forces that are not in the Lagrangian
 * ([forces]), and which: a dissipation function, given forces, or both. */
static void
test_kind_names_forces (void)
{
  static const struct
  {
    const char *file; /* in doc/examples, or NULL: TEXT */
    const char *text;
    const char *kind;
  } cases[] = {
    { "sleigh-friction.cml", NULL, "nonholonomic (Lagrange–d'Alembert) equations with forces: dissipation D" },
    { "driven-pendulum.cml", NULL,
      "Euler–Lagrange equations on a Lie algebroid with forces: dissipation D and external forces" },
    { "rolling-ball-resistance.cml", NULL, "nonholonomic (Lagrange–d'Alembert) equations with forces: dissipation D" },
    { NULL,
      "[model]\nname = pushed\ntitle = a pushed particle\n[algebroid]\nbase = x\nfibre = u\n[anchor]\ne1 = x: 1\n"
      "[dynamics]\nlagrangian = u^2/2\n[forces]\ne1 = cos(t)\n[initial]\nx = 0\nu = 1\n",
      "Euler–Lagrange equations on a Lie algebroid with external forces" },
    { NULL, rotated_kernel, "singular Lagrangian (constraint algorithm with the SODE condition)" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (CmlSystem) sys = NULL;
      if (cases[k].file)
        {
          g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", cases[k].file, NULL);
          g_autofree char *text = NULL;
          g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
          sys = system_from_text (text, cases[k].file);
        }
      else
        sys = system_from_text (cases[k].text, "forces.cml");
      g_autofree char *kind = kind_line (sys);
      g_assert_cmpstr (kind, ==, cases[k].kind);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/describe/kernel-exact", test_kernel_exact);
  g_test_add_func ("/describe/constraint-levels", test_constraint_levels);
  g_test_add_func ("/describe/vakonomic-no-trivial-lines", test_vakonomic_no_trivial_lines);
  g_test_add_func ("/describe/kind-names-forces", test_kind_names_forces);
  return g_test_run ();
}
