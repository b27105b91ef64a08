/* test-number-text.c — cml_number_text_g17 writes what snprintf's "%.17g" writes, on
 * millions of doubles: any bit pattern, the usual magnitudes, powers of ten and their
 * neighbours, decimal numbers of up to 18 digits (the ties of the rounding), integers and
 * halves, subnormals, ±0, ±inf, nan.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <float.h>
#include <glib.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cml-number-text.h"

static guint64 n_checked;

static void
check (double v)
{
  char want[64], got[CML_NUMBER_TEXT_SIZE];
  int n = cml_number_text_g17 (got, v);

  snprintf (want, sizeof want, "%.17g", v);
  if (strcmp (want, got) != 0 || n != (int) strlen (want))
    {
      guint64 bits;

      memcpy (&bits, &v, sizeof bits);
      g_error ("0x%016" G_GINT64_MODIFIER "x: %%.17g gives \"%s\", the formatter \"%s\" (length %d)", bits, want,
               got, n);
    }
  n_checked++;
}

static void
check_both_signs (double v)
{
  check (v);
  check (-v);
}

static guint64
rand64 (void)
{
  return ((guint64) g_test_rand_int () << 32) ^ (guint32) g_test_rand_int ();
}

static void
test_special (void)
{
  const double specials[] = { 0.0, INFINITY, NAN, DBL_MAX, DBL_MIN, DBL_TRUE_MIN, DBL_EPSILON, 1.0, 0.5, 0.1, 1e-5,
                              1e-4, 9.9999999999999995e-5, 1e16, 1e17, 9.9999999999999998e16, 123456789012345678.0,
                              2.0 / 3.0, M_PI, 7.4162987092054884, 7594.28987822642, 5e-324, 2.2250738585072009e-308,
                              1.7976931348623157e308, 3.4028236692093846e38, 3.4e38, 1e38, 1e39 };

  for (guint i = 0; i < G_N_ELEMENTS (specials); i++)
    check_both_signs (specials[i]);
}

static void
test_powers_of_ten (void)
{
  for (int k = -330; k <= 310; k++)
    {
      char s[16];
      double p;

      g_snprintf (s, sizeof s, "1e%d", k);
      p = g_ascii_strtod (s, NULL);
      check_both_signs (p);
      for (int j = 1; j <= 40; j++)
        {
          check_both_signs (p = nextafter (p, INFINITY));
        }
      g_snprintf (s, sizeof s, "1e%d", k);
      p = g_ascii_strtod (s, NULL);
      for (int j = 1; j <= 40; j++)
        check_both_signs (p = nextafter (p, 0));
      /* 0.99999999999999999…5 · 10^k, which rounds up to the next power */
      g_snprintf (s, sizeof s, "9.99999999999999995e%d", k - 1);
      check_both_signs (g_ascii_strtod (s, NULL));
    }
}

static void
test_bit_patterns (void)
{
  for (int i = 0; i < 2000000; i++)
    {
      guint64 b = rand64 ();
      double v;

      memcpy (&v, &b, sizeof v);
      check (v);
    }
}

static void
test_subnormals (void)
{
  for (int i = 0; i < 200000; i++)
    {
      guint64 b = rand64 () >> g_test_rand_int_range (12, 64);
      double v;

      memcpy (&v, &b, sizeof v);
      check_both_signs (v);
    }
}

static void
test_usual_magnitudes (void)
{
  for (int i = 0; i < 2000000; i++)
    check (g_test_rand_double_range (-1, 1) * pow (10, g_test_rand_double_range (-40, 42)));
}

/* Decimal numbers of 1 to 18 significant digits: the 18th digit 5 is where %.17g rounds
 * half to even when the double holds the tie exactly. */
static void
test_decimals (void)
{
  for (int i = 0; i < 1000000; i++)
    {
      char s[48];
      int digits = g_test_rand_int_range (1, 19);
      guint64 n = rand64 () % (guint64) pow (10, digits);

      g_snprintf (s, sizeof s, "%" G_GUINT64_FORMAT "e%d", n, g_test_rand_int_range (-40, 40));
      check_both_signs (g_ascii_strtod (s, NULL));
    }
}

/* Integers and halves times powers of two: exact ties at every scale. */
static void
test_dyadic (void)
{
  for (int i = 0; i < 1000000; i++)
    {
      double n = (double) (rand64 () >> g_test_rand_int_range (0, 64));

      check_both_signs (ldexp (n, g_test_rand_int_range (-1100, 1000)));
      check_both_signs (ldexp (2 * n + 1, -1));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  setlocale (LC_ALL, "C");
  g_test_add_func ("/number-text/special", test_special);
  g_test_add_func ("/number-text/powers-of-ten", test_powers_of_ten);
  g_test_add_func ("/number-text/bit-patterns", test_bit_patterns);
  g_test_add_func ("/number-text/subnormals", test_subnormals);
  g_test_add_func ("/number-text/usual-magnitudes", test_usual_magnitudes);
  g_test_add_func ("/number-text/decimals", test_decimals);
  g_test_add_func ("/number-text/dyadic", test_dyadic);
  int r = g_test_run ();
  g_test_message ("%" G_GUINT64_FORMAT " numbers checked", n_checked);
  return r;
}
