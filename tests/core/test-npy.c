/* test-npy.c — the .npy header cmlab writes has NumPy's layout, read here byte by byte
 * without NumPy: the magic "\x93NUMPY", format 1.0 (2.0 only for a header longer than
 * 65535 bytes), the little-endian header length, a dict literal naming one '<f8' field per
 * column with the shape (N,), padded with spaces and ended by '\n' so that the data start
 * at a multiple of 64 bytes; and the same length whatever N, so that the header written
 * first is overwritten in place at the end.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib.h>
#include <string.h>

#include "cml-npy.h"

/* The header's parts: version, the dict's text (without its padding), its full length. */
static void
parse (GString *h, guint *major, guint *minor, gsize *dict_len, char **dict)
{
  const guchar *b = (const guchar *) h->str;
  gsize prefix;

  g_assert_cmpint (h->len, >=, 10);
  g_assert_cmpmem (h->str, 6, "\x93NUMPY", 6);
  *major = b[6];
  *minor = b[7];
  g_assert_cmpuint (*minor, ==, 0);
  if (*major == 1)
    {
      *dict_len = b[8] | (gsize) b[9] << 8;
      prefix = 10;
    }
  else
    {
      g_assert_cmpuint (*major, ==, 2);
      *dict_len = b[8] | (gsize) b[9] << 8 | (gsize) b[10] << 16 | (gsize) b[11] << 24;
      prefix = 12;
    }
  /* the data start right after the header, at a multiple of 64 */
  g_assert_cmpuint (prefix + *dict_len, ==, h->len);
  g_assert_cmpuint (h->len % 64, ==, 0);
  /* the dict: ends with '\n', padded with spaces before it */
  g_assert_cmpint (h->str[h->len - 1], ==, '\n');
  gsize end = h->len - 1;
  while (end > prefix && h->str[end - 1] == ' ')
    end--;
  *dict = g_strndup (h->str + prefix, end - prefix);
}

static void
test_layout (void)
{
  const char *names[] = { "t", "x", "energy", "x_ref", "x_err" };
  g_autoptr (GString) h = g_string_new (NULL);
  g_autofree char *dict = NULL;
  guint major, minor;
  gsize len;

  cml_npy_header (names, G_N_ELEMENTS (names), 1001, h);
  parse (h, &major, &minor, &len, &dict);
  g_assert_cmpuint (major, ==, 1);
  g_assert_cmpstr (dict, ==,
                   "{'descr': [('t', '<f8'), ('x', '<f8'), ('energy', '<f8'), ('x_ref', '<f8'), ('x_err', '<f8')], "
                   "'fortran_order': False, 'shape': (                1001,), }");
}

static void
test_length_independent_of_rows (void)
{
  const char *names[] = { "t", "q" };
  g_autoptr (GString) h0 = g_string_new (NULL);
  g_autoptr (GString) h1 = g_string_new (NULL);
  guint64 counts[] = { 0, 1, 999999, 1000000, G_MAXUINT64 };

  cml_npy_header (names, 2, 0, h0);
  for (guint k = 0; k < G_N_ELEMENTS (counts); k++)
    {
      g_autofree char *dict = NULL;
      g_autofree char *shape = g_strdup_printf ("(%20" G_GUINT64_FORMAT ",)", counts[k]);
      guint major, minor;
      gsize len;

      cml_npy_header (names, 2, counts[k], h1);
      g_assert_cmpuint (h1->len, ==, h0->len);
      parse (h1, &major, &minor, &len, &dict);
      g_assert_nonnull (strstr (dict, shape));
    }
}

static void
test_escaped_and_long (void)
{
  /* a quote or a backslash in a name is escaped in the literal */
  const char *odd[] = { "t", "it's", "a\\b" };
  g_autoptr (GString) h = g_string_new (NULL);
  g_autofree char *dict = NULL;
  guint major, minor;
  gsize len;

  cml_npy_header (odd, 3, 2, h);
  parse (h, &major, &minor, &len, &dict);
  g_assert_nonnull (strstr (dict, "('it\\'s', '<f8'), ('a\\\\b', '<f8')"));

  /* more columns than a 1.0 header holds: format 2.0 */
  g_autoptr (GPtrArray) many = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < 5000; k++)
    g_ptr_array_add (many, g_strdup_printf ("column_%u", k));
  g_autofree char *dict2 = NULL;
  cml_npy_header ((const char *const *) many->pdata, many->len, 7, h);
  parse (h, &major, &minor, &len, &dict2);
  g_assert_cmpuint (major, ==, 2);
  g_assert_cmpuint (len, >, 65535);
}

static void
test_names (void)
{
  const char *good[] = { "t", "x", "y" };
  const char *twice[] = { "t", "x", "x" };
  const char *empty[] = { "t", "" };
  const char *bad = NULL;

  g_assert_true (cml_npy_names_ok (good, 3, NULL));
  g_assert_false (cml_npy_names_ok (twice, 3, &bad));
  g_assert_cmpstr (bad, ==, "x");
  g_assert_false (cml_npy_names_ok (empty, 2, &bad));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/npy/layout", test_layout);
  g_test_add_func ("/core/npy/length-independent-of-rows", test_length_independent_of_rows);
  g_test_add_func ("/core/npy/escaped-and-long", test_escaped_and_long);
  g_test_add_func ("/core/npy/names", test_names);
  return g_test_run ();
}
