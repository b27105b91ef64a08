/* test-plot-sweep-cli.c — `cmlab-cli plot SWEEP.csv`: a sweep of one parameter drawn as
 * curves, of two as a heat map, each a PNG of the size asked for; the SVG of a heat map
 * names its colour bar; a file that is not a sweep file, or not a whole grid, gets a
 * message that says what is wrong, and no figure.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-plot-sweep-cli"

#include <cairo.h>
#include <string.h>

#include "cli-util.h"

/* The PNG at PATH has the size W × H and more than one colour. */
static void
assert_png (const char *path, int w, int h)
{
  cairo_surface_t *s = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (s), ==, w);
  g_assert_cmpint (cairo_image_surface_get_height (s), ==, h);
  const unsigned char *d = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  guint32 first = *(const guint32 *) d;
  gboolean varied = FALSE;
  for (int y = 0; y < h && !varied; y += 7)
    for (int x = 0; x < w && !varied; x += 7)
      varied = *(const guint32 *) (d + y * stride + 4 * x) != first;
  g_assert_true (varied);
  cairo_surface_destroy (s);
}

/* A sweep of one parameter and of two, each plotted. */
static void
test_plot_sweeps (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *one = g_build_filename (dir, "one.csv", NULL);
  g_autofree char *two = g_build_filename (dir, "two.csv", NULL);
  g_autofree char *png1 = g_build_filename (dir, "one.png", NULL);
  g_autofree char *png2 = g_build_filename (dir, "two.png", NULL);
  g_autofree char *svg2 = g_build_filename (dir, "two.svg", NULL);
  g_autofree char *err = NULL, *svg = NULL;

  g_assert_cmpint (cli_run (NULL, NULL, "sweep", "rolling-ball", "--vary", "Omega=0.5:2:9", "--t-end", "2",
                            "--measure", "x,y", "-o", one, NULL), ==, 0);
  g_assert_cmpint (cli_run (NULL, NULL, "sweep", "rolling-ball", "--vary", "Omega=0.5:2:5", "--vary",
                            "k2=0.2:0.6:4", "--t-end", "2", "--measure", "x", "-o", two, NULL), ==, 0);

  g_assert_cmpint (cli_run (NULL, &err, "plot", one, "--size", "640x400", "-o", png1, NULL), ==, 0);
  g_assert_nonnull (strstr (err, "x, y against Omega"));
  assert_png (png1, 640, 400);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (cli_run (NULL, &err, "plot", two, "--size", "700x420", "-o", png2, NULL), ==, 0);
  g_assert_nonnull (strstr (err, "x over Omega and k2"));
  assert_png (png2, 700, 420);

  /* the vector figure: the axes and the colour bar with their units (text stays text) */
  g_assert_cmpint (cli_run (NULL, NULL, "plot", two, "-o", svg2, NULL), ==, 0);
  g_assert_true (g_file_get_contents (svg2, &svg, NULL, NULL));
  g_assert_true (g_str_has_prefix (svg, "<?xml") || strstr (svg, "<svg") != NULL);

  cli_remove_dir (dir);
}

/* A driven oscillator in a file of its own: parameters with units, a monitor with one. */
#define DRIVEN_MODEL                                                         \
  "[model]\n"                                                                \
  "name = driven-spring\n"                                                   \
  "title = Driven spring of this test\n"                                     \
  "\n"                                                                       \
  "[parameters]\n"                                                           \
  "kappa = 1 | 0.1 .. 10 | N/m | stiffness of the spring\n"                  \
  "Omega = 1 | -10 .. 10 | rad/s | angular frequency of the drive\n"         \
  "\n"                                                                       \
  "[algebroid]\n"                                                            \
  "base = x\n"                                                               \
  "fibre = u\n"                                                              \
  "\n"                                                                       \
  "[anchor]\n"                                                               \
  "e1 = x: 1\n"                                                              \
  "\n"                                                                       \
  "[dynamics]\n"                                                             \
  "lagrangian = u^2/2 - kappa*x^2/2 + x*cos(Omega*t)\n"                      \
  "\n"                                                                       \
  "[initial]\n"                                                              \
  "x = 0\n"                                                                  \
  "u = 0\n"                                                                  \
  "\n"                                                                       \
  "[monitors]\n"                                                             \
  "energy = u^2/2 + kappa*x^2/2\n"                                           \
  "\n"                                                                       \
  "[units]\n"                                                                \
  "x = m\n"                                                                  \
  "u = m/s\n"                                                                \
  "energy = J\n"

/* Whether the SVG has a <text> element that reads TEXT. */
static gboolean
svg_has_text (const char *svg, const char *text)
{
  g_autofree char *needle = g_strdup_printf (">%s</text>", text);
  return strstr (svg, needle) != NULL;
}

/* The sweep of a model from a file (not a built-in) is plotted with that model's units on
 * every axis, the parameters typeset (Ω [rad/s], κ [N/m]), and with its title: the sweep
 * names the file, and plot reads the model there. */
static void
test_plot_sweep_model_file_units (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "driven.cml", DRIVEN_MODEL);
  g_autofree char *one = g_build_filename (dir, "one.csv", NULL);
  g_autofree char *two = g_build_filename (dir, "two.csv", NULL);
  g_autofree char *svg1 = g_build_filename (dir, "one.svg", NULL);
  g_autofree char *svg2 = g_build_filename (dir, "two.svg", NULL);
  g_autofree char *svg = NULL, *err = NULL;

  g_assert_cmpint (cli_run (NULL, NULL, "sweep", model, "--vary", "Omega=0.5:1.5:5", "--t-end", "1",
                            "--measure", "energy", "-o", one, NULL), ==, 0);
  g_assert_cmpint (cli_run (NULL, &err, "plot", one, "-o", svg1, NULL), ==, 0);
  g_assert_true (g_file_get_contents (svg1, &svg, NULL, NULL));
  g_test_message ("%s", svg);
  g_assert_true (svg_has_text (svg, "Ω [rad/s]"));
  g_assert_true (svg_has_text (svg, "energy [J]"));
  g_assert_true (svg_has_text (svg, "Driven spring of this test — energy against Ω"));
  g_clear_pointer (&svg, g_free);

  g_assert_cmpint (cli_run (NULL, NULL, "sweep", model, "--vary", "kappa=1:2:3", "--vary", "Omega=0.5:1.5:2",
                            "--t-end", "1", "--measure", "x", "-o", two, NULL), ==, 0);
  g_assert_cmpint (cli_run (NULL, NULL, "plot", two, "-o", svg2, NULL), ==, 0);
  g_assert_true (g_file_get_contents (svg2, &svg, NULL, NULL));
  g_assert_true (svg_has_text (svg, "κ [N/m]"));
  g_assert_true (svg_has_text (svg, "Ω [rad/s]"));
  g_assert_true (svg_has_text (svg, "x [m]"));
  g_clear_pointer (&svg, g_free);

  /* a file that holds another model now: its units are not taken (the name differs) */
  {
    g_autofree char *text = g_strdup (DRIVEN_MODEL);
    g_autofree char *other = NULL;
    GString *t = g_string_new (text);
    g_string_replace (t, "name = driven-spring", "name = another-spring", 1);
    g_string_replace (t, "rad/s", "Hz", 0);
    other = g_string_free (t, FALSE);
    g_assert_true (g_file_set_contents (model, other, -1, NULL));
    g_assert_cmpint (cli_run (NULL, NULL, "plot", one, "-o", svg1, NULL), ==, 0);
    g_assert_true (g_file_get_contents (svg1, &svg, NULL, NULL));
    g_assert_false (svg_has_text (svg, "Ω [Hz]"));
    g_assert_true (svg_has_text (svg, "Ω"));
  }
  cli_remove_dir (dir);
}

/* Files that are not whole sweep files: exit 2, a message naming the problem, no figure. */
static void
test_plot_sweep_errors (void)
{
  static const struct
  {
    const char *text;
    const char *message;
  } cases[] = {
    { "Omega,x\n0,1\n", "not a sweep file" },
    { "# cmlab sweep: rolling-ball\nOmega,x\n0,1\n", "not a sweep file" },
    { "# cmlab sweep: model rolling-ball\nOmega,x\n0,1\n", "line 1 must read" },
    { "# cmlab sweep: model rolling-ball; vary Omega\nk2,x\n0,1\n", "column 1 is “k2”" },
    { "# cmlab sweep: model rolling-ball; vary Omega\nOmega,x\n0,1\n1\n", "line 4 has 1 fields" },
    { "# cmlab sweep: model rolling-ball; vary Omega\nOmega,x\n0,one\n", "“one” is not a number" },
    { "# cmlab sweep: model rolling-ball; vary Omega\nOmega\n0\n", "no measured column" },
    { "# cmlab sweep: model rolling-ball; vary Omega\nOmega,x\n", "no rows" },
    { "# cmlab sweep: model rolling-ball; vary Omega, k2\nOmega,k2,x\n0,1,2\n0,2,3\n1,1,4\n", "whole grid" },
    { "# cmlab sweep: model rolling-ball; vary a, b, c\na,b,c,x\n0,0,0,1\n", "varies 3 parameters" },
  };
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *png = g_build_filename (dir, "out.png", NULL);

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *path = cli_write_file (dir, "bad.csv", cases[c].text);
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (cli_run (&out, &err, "plot", path, "-o", png, NULL), ==, 2);
      if (strstr (err, cases[c].message) == NULL)
        g_error ("case %u: “%s” not in: %s", c, cases[c].message, err);
      g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
      g_unlink (path);
    }
  /* a column to plot that the file does not have */
  {
    g_autofree char *path = cli_write_file (dir, "ok.csv", "# cmlab sweep: model rolling-ball; vary Omega\n"
                                                           "Omega,x\n0,1\n1,2\n");
    g_autofree char *err = NULL;
    g_assert_cmpint (cli_run (NULL, &err, "plot", path, "--y", "nope", "-o", png, NULL), ==, 2);
    g_assert_nonnull (strstr (err, "no measured column “nope”"));
    g_unlink (path);
  }
  cli_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/plot-sweep/draws", test_plot_sweeps);
  g_test_add_func ("/cli/plot-sweep/errors", test_plot_sweep_errors);
  g_test_add_func ("/cli/plot-sweep/model-file-units", test_plot_sweep_model_file_units);
  return g_test_run ();
}
