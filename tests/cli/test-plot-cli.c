/* test-plot-cli.c — `cmlab-cli plot`: PNG, SVG and PDF figures, and bad input.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <cairo.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static char *tmpdir;

static int
run_cli (char **err, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  va_list ap;
  const char *a;
  int status = -1;
  g_autofree char *out = NULL;

  g_ptr_array_add (argv, (char *) g_getenv ("CMLAB_CLI"));
  g_ptr_array_add (argv, "plot");
  va_start (ap, err);
  while ((a = va_arg (ap, const char *)))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, err, &status, NULL));
  g_test_message ("stderr: %s", *err);
  return g_spawn_check_wait_status (status, NULL) ? 0 : WEXITSTATUS (status);
}

static void
test_png (void)
{
  g_autofree char *err = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "energy.png", NULL);
  g_assert_cmpint (run_cli (&err, "rolling-ball", "--t-end", "30", "--y", "energy,I", "--size", "640x400", "-o", path,
                            NULL), ==, 0);
  cairo_surface_t *s = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (s), ==, 640);
  g_assert_cmpint (cairo_image_surface_get_height (s), ==, 400);
  /* not blank: enough pixels differ from the corner (background) */
  cairo_surface_flush (s);
  const guint32 *px = (const guint32 *) cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s) / 4, differ = 0;
  for (int y = 0; y < 400; y++)
    for (int x = 0; x < 640; x++)
      differ += px[y * stride + x] != px[0];
  g_assert_cmpint (differ, >, 640 * 400 / 100);
  cairo_surface_destroy (s);
}

static void
test_vector (void)
{
  g_autofree char *err = NULL, *svg = NULL, *pdf = NULL;
  g_autofree char *spath = g_build_filename (tmpdir, "x3.svg", NULL);
  g_autofree char *ppath = g_build_filename (tmpdir, "elastica.pdf", NULL);
  g_assert_cmpint (run_cli (&err, "martinet", "--t-end", "10", "--y", "x3", "--title", "Martinet height", "-o", spath,
                            NULL), ==, 0);
  g_assert_true (g_file_get_contents (spath, &svg, NULL, NULL));
  g_assert_true (g_str_has_prefix (svg, "<?xml"));
  g_assert_nonnull (strstr (svg, "Martinet height"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (&err, "plate-ball", "--t-end", "20", "--y", "x2", "--x", "x1", "-o", ppath, NULL), ==, 0);
  g_assert_true (g_file_get_contents (ppath, &pdf, NULL, NULL));
  g_assert_true (g_str_has_prefix (pdf, "%PDF"));
}

/* The bounding box of the pixels near COLOR (0xrrggbb) in the PNG at PATH. */
static void
color_extent (const char *path, guint32 color, int *w, int *h)
{
  cairo_surface_t *s = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_flush (s);
  const guint8 *data = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  int x0 = G_MAXINT, x1 = -1, y0 = G_MAXINT, y1 = -1;
  for (int y = 0; y < cairo_image_surface_get_height (s); y++)
    for (int x = 0; x < cairo_image_surface_get_width (s); x++)
      {
        guint32 px = *(const guint32 *) (data + y * stride + 4 * x);
        int dr = (int) ((px >> 16) & 0xff) - (int) ((color >> 16) & 0xff);
        int dg = (int) ((px >> 8) & 0xff) - (int) ((color >> 8) & 0xff);
        int db = (int) (px & 0xff) - (int) (color & 0xff);
        if (abs (dr) < 40 && abs (dg) < 40 && abs (db) < 40)
          x0 = MIN (x0, x), x1 = MAX (x1, x), y0 = MIN (y0, y), y1 = MAX (y1, y);
      }
  cairo_surface_destroy (s);
  *w = x1 - x0 + 1;
  *h = y1 - y0 + 1;
}

/* The figure for a slide: a title naming the model and what is plotted, the parameters'
 * line, and equal scales for y [m] against x [m] (the lab-frame circle is round) unless
 * --no-equal-scales. */
static void
test_figure (void)
{
  g_autofree char *err = NULL, *svg = NULL, *bare = NULL;
  g_autofree char *spath = g_build_filename (tmpdir, "orbit.svg", NULL);
  g_autofree char *bpath = g_build_filename (tmpdir, "bare.svg", NULL);
  g_autofree char *round = g_build_filename (tmpdir, "round.png", NULL);
  g_autofree char *free_png = g_build_filename (tmpdir, "free.png", NULL);

  g_assert_cmpint (run_cli (&err, "rolling-ball", "--t-end", "30", "--y", "y", "--x", "x", "--set", "Omega=1",
                            "--init", "x=0.3", "-o", spath, NULL), ==, 0);
  g_assert_true (g_file_get_contents (spath, &svg, NULL, NULL));
  g_assert_nonnull (strstr (svg, "<title>Rolling ball on a rotating table — y against x</title>"));
  g_assert_nonnull (strstr (svg, "m = 1 kg, r = 1 m, k₂ = 0.4 m², Ω = 1 rad/s"));
  /* and the initial values it was run from (--init given, the rest the model's), as text */
  g_assert_nonnull (strstr (svg, ">from x = 0.3 m, y = 0 m, "));
  g_assert_nonnull (strstr (svg, "α = 0 rad</text>"));
  g_clear_pointer (&err, g_free);

  /* --title '': neither title nor parameters */
  g_assert_cmpint (run_cli (&err, "rolling-ball", "--t-end", "5", "--y", "y", "--x", "x", "--title", "", "-o", bpath,
                            NULL), ==, 0);
  g_assert_true (g_file_get_contents (bpath, &bare, NULL, NULL));
  g_assert_null (strstr (bare, "Rolling ball on"));
  g_assert_null (strstr (bare, "k₂ = "));
  g_assert_null (strstr (bare, "from x = "));
  g_clear_pointer (&err, g_free);

  /* a circle in a 16:9 frame: round, or (free scales) as wide as the frame lets it */
  int w, h;
  g_assert_cmpint (run_cli (&err, "rolling-ball", "--t-end", "30", "--y", "y", "--x", "x", "--size", "1600x900",
                            "-o", round, NULL), ==, 0);
  color_extent (round, 0x0072b2, &w, &h);
  g_test_message ("equal scales: the orbit is %d × %d px", w, h);
  g_assert_cmpint (h, >, 300);
  g_assert_cmpint (abs (w - h), <=, 8);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (&err, "rolling-ball", "--t-end", "30", "--y", "y", "--x", "x", "--size", "1600x900",
                            "--no-equal-scales", "-o", free_png, NULL), ==, 0);
  color_extent (free_png, 0x0072b2, &w, &h);
  g_test_message ("free scales: the orbit is %d × %d px", w, h);
  g_assert_cmpfloat ((double) w / h, >, 1.4);
}

static void
test_bad (void)
{
  g_autofree char *err = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "bad.bmp", NULL);
  g_autofree char *png = g_build_filename (tmpdir, "bad.png", NULL);
  g_assert_cmpint (run_cli (&err, "rolling-ball", "--t-end", "1", "--y", "energy", "-o", path, NULL), ==, 2);
  g_assert_nonnull (strstr (err, ".png, .svg or .pdf"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (&err, "rolling-ball", "--t-end", "1", "--y", "nosuch", "-o", png, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "nosuch"));
  g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli (&err, "rolling-ball", "--t-end", "1", "--y", "energy", "-o", "/nonexistent-dir/x.png", NULL),
                   ==, 2);
  g_assert_false (g_file_test ("/nonexistent-dir/x.png", G_FILE_TEST_EXISTS));
}

/* The run options shared with simulate and render: --integrator, --rtol, --atol, --step,
 * --init, checked as simulate checks them (plot took none of them but --set and --init);
 * a value missing at the end is named; -o is checked before the run. */
static void
test_run_options (void)
{
  g_autofree char *png = g_build_filename (tmpdir, "run-options.png", NULL);
  struct { const char *args[16]; int status; const char *expect; } cases[] = {
    { { "rolling-ball", "--t-end", "2", "--y", "energy", "--integrator", "implicit-midpoint", "--step", "0.01", "-o",
        png }, 0, "wrote" },
    { { "rolling-ball", "--t-end", "2", "--y", "energy", "--integrator", "msbdf", "--rtol", "1e-8", "--atol", "1e-10",
        "-o", png }, 0, "wrote" },
    { { "rolling-ball", "--t-end", "2", "--y", "energy", "--step", "0.01", "-o", png }, 2,
      "--step sets the step of a fixed-step integrator" },
    { { "rolling-ball", "--t-end", "2", "--y", "energy", "--integrator", "implicit-midpoint", "--rtol", "1e-6", "-o",
        png }, 2, "--rtol and --atol do not apply" },
    { { "rolling-ball", "--t-end", "2", "--y", "energy", "--rtol", "2", "-o", png }, 2,
      "--rtol needs a number between 0 and 1" },
    { { "rolling-ball", "--t-end", "2", "--y", "energy", "--atol", "0", "-o", png }, 2, "--atol needs a number > 0" },
    { { "rolling-ball", "--t-end", "2", "--y", "energy", "--integrator", "euler", "-o", png }, 2,
      "unknown integrator" },
    { { "rolling-ball", "--t-end", "2", "--y", "energy", "-o" }, 2, "option -o needs a value" },
    { { "rolling-ball", "--y", "energy", "-o", png, "--t-end" }, 2, "option --t-end needs a value" },
    { { "rolling-ball", "--t-end", "2", "--y", "energy", "-o", "/nonexistent-cmlab-dir/x.png" }, 2,
      "no directory “/nonexistent-cmlab-dir”" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      const char *const *a = cases[k].args;
      g_autofree char *err = NULL;
      int st = run_cli (&err, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13],
                        a[14], a[15], NULL);
      if (st != cases[k].status || strstr (err, cases[k].expect) == NULL)
        g_error ("case %u: exit status %d, expected %d and “%s” (stderr: %s)", k, st, cases[k].status,
                 cases[k].expect, err);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("CMLAB_CLI") == NULL)
    {
      g_test_message ("CMLAB_CLI is not set");
      return 77;
    }
  tmpdir = g_dir_make_tmp ("cmlab-plot-XXXXXX", NULL);
  g_test_add_func ("/render/plot-cli/png", test_png);
  g_test_add_func ("/render/plot-cli/svg-pdf", test_vector);
  g_test_add_func ("/render/plot-cli/figure", test_figure);
  g_test_add_func ("/render/plot-cli/bad-input", test_bad);
  g_test_add_func ("/render/plot-cli/run-options", test_run_options);
  int status = g_test_run ();
  g_autoptr (GDir) d = g_dir_open (tmpdir, 0, NULL);
  const char *f;
  while (d && (f = g_dir_read_name (d)))
    {
      g_autofree char *p = g_build_filename (tmpdir, f, NULL);
      g_unlink (p);
    }
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return status;
}
