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
  return g_test_run ();
}
