/* test-plot-cli.c — `cmlab-cli plot`: PNG, SVG and PDF figures, and bad input.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <cairo.h>
#include <glib.h>
#include <glib/gstdio.h>
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
  g_test_add_func ("/render/plot-cli/bad-input", test_bad);
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
