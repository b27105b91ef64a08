/* cml-number-text.c — a double as the characters printf's "%.17g" writes in the C locale,
 * without printf.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A finite v ≠ 0 is m·2^e (m an integer below 2^53).  With X = ⌊log10 |v|⌋ (the exponent
 * of the e-style form), the 17 significant digits are the integer D = round(|v|·10^(16−X)),
 * rounded half to even like glibc in the default rounding mode, and 10^16 ≤ D < 10^17
 * (D reaching 10^17 by the rounding makes it 10^16 and X one more).  D is computed
 * exactly: for 16 − X = k ≥ 0 as m·10^k, a multi-word integer, shifted right by −e
 * with the dropped bits compared to one half; for k < 0 (|v| ≥ 10^17) as m·2^e divided
 * by 10^−k in 128-bit integers, which covers |v| < 2^128 (≈ 3.4e38).  Larger numbers are
 * left to snprintf.  X is estimated from the binary exponent and corrected until
 * ⌊|v|·10^(16−X)⌋ has 17 digits; the digits are written two at a time.
 *
 * Then C's rule for %g with precision P = 17 (C17 7.21.6.1): the f style with 16 − X
 * decimals when 17 > X ≥ −4, otherwise the e style with 16 decimals and an exponent of at
 * least two digits; trailing zeros of the fraction are dropped, and the point with them.
 */
#include "cml-number-text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef unsigned __int128 u128;

#define LIMBS 20 /* m·10^k < 2^53·10^341 < 2^1186 */

/* ⌊|v|·10^k⌋ for |v| = m·2^e, and how the rest compares to one half (−1, 0, +1).
 * FALSE when the exact product is beyond what is computed here. */
static const uint64_t pow10_u64[20] = {
  UINT64_C (1), UINT64_C (10), UINT64_C (100), UINT64_C (1000), UINT64_C (10000), UINT64_C (100000),
  UINT64_C (1000000), UINT64_C (10000000), UINT64_C (100000000), UINT64_C (1000000000),
  UINT64_C (10000000000), UINT64_C (100000000000), UINT64_C (1000000000000), UINT64_C (10000000000000),
  UINT64_C (100000000000000), UINT64_C (1000000000000000), UINT64_C (10000000000000000),
  UINT64_C (100000000000000000), UINT64_C (1000000000000000000), UINT64_C (10000000000000000000),
};

static int
scaled (uint64_t m, int e, int k, uint64_t *q, int *half)
{
  if (k >= 0)
    {
      uint64_t x[LIMBS]; /* limbs 0 … n−1 hold the product; those above are zeros */
      int n = 1;

      x[0] = m;
      for (int left = k; left > 0;)
        {
          int step = left > 19 ? 19 : left;
          uint64_t p = pow10_u64[step], carry = 0;

          left -= step;
          for (int i = 0; i < n; i++)
            {
              u128 t = (u128) x[i] * p + carry;
              x[i] = (uint64_t) t;
              carry = (uint64_t) (t >> 64);
            }
          if (carry)
            {
              if (n == LIMBS)
                return 0;
              x[n++] = carry;
            }
        }
      if (e >= 0)
        {
          if (n > 1 || e >= 64 || (e > 0 && x[0] >> (64 - e) != 0))
            return 0;
          *q = x[0] << e;
          *half = -1;
          return 1;
        }
      /* the quotient: bits s … s+63 of x; the rest: bits 0 … s−1 */
      int s = -e, w = s / 64, b = s % 64;
      uint64_t lo = w < n ? x[w] : 0, hi = w + 1 < n ? x[w + 1] : 0;

      for (int i = w + 2; i < n; i++)
        if (x[i])
          return 0; /* the quotient would pass 64 bits */
      if (b == 0)
        {
          if (hi)
            return 0;
          *q = lo;
        }
      else
        {
          if (hi >> b)
            return 0;
          *q = (lo >> b) | (hi << (64 - b));
        }
      /* bit s−1 is the half; below it, anything */
      int hb = s - 1, hw = hb / 64, hbit = hb % 64;
      uint64_t hword = hw < n ? x[hw] : 0;
      int rest = (hword & ((UINT64_C (1) << hbit) - 1)) != 0;

      for (int i = 0; i < hw && i < n && !rest; i++)
        rest = x[i] != 0;
      if (!((hword >> hbit) & 1))
        *half = -1;
      else
        *half = rest ? 1 : 0;
      return 1;
    }
  else
    {
      int p = -k;
      u128 d, num, r;

      if (e < 0 || e > 74 || p > 38)
        return 0;
      d = p > 19 ? (u128) pow10_u64[19] * pow10_u64[p - 19] : pow10_u64[p];
      num = (u128) m << e;
      r = num % d;
      num /= d;
      if (num >> 64)
        return 0;
      *q = (uint64_t) num;
      *half = 2 * r < d ? -1 : 2 * r == d ? 0 : 1;
      return 1;
    }
}

/* The two digits of 0 … 99, as text. */
static const char digit_pairs[201] = "0001020304050607080910111213141516171819"
                                     "2021222324252627282930313233343536373839"
                                     "4041424344454647484950515253545556575859"
                                     "6061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* The 8 digits of N < 10^8 into D: four pairs, each from its own division. */
static inline void
put8 (char *d, uint32_t n)
{
  uint32_t a = n / 10000, b = n % 10000;

  memcpy (d, digit_pairs + 2 * (a / 100), 2);
  memcpy (d + 2, digit_pairs + 2 * (a % 100), 2);
  memcpy (d + 4, digit_pairs + 2 * (b / 100), 2);
  memcpy (d + 6, digit_pairs + 2 * (b % 100), 2);
}

static int
fallback (char *buf, double v)
{
  return snprintf (buf, CML_NUMBER_TEXT_SIZE, "%.17g", v);
}

int
cml_number_text_g17 (char *buf, double v)
{
  const uint64_t lo17 = UINT64_C (10000000000000000), hi17 = UINT64_C (100000000000000000);
  uint64_t bits, m, q = 0;
  int be, e, x, half = 0, len = 0, ok = 0;
  char digits[18];
  int nd;

  memcpy (&bits, &v, sizeof bits);
  if (bits >> 63)
    buf[len++] = '-';
  be = (int) ((bits >> 52) & 0x7ff);
  m = bits & ((UINT64_C (1) << 52) - 1);
  if (be == 0x7ff)
    {
      if (m)
        return fallback (buf, v);
      memcpy (buf + len, "inf", 4);
      return len + 3;
    }
  if (be == 0 && m == 0)
    {
      buf[len++] = '0';
      buf[len] = '\0';
      return len;
    }
  if (be == 0)
    e = -1074;
  else
    {
      m |= UINT64_C (1) << 52;
      e = be - 1075;
    }

  /* 2^E ≤ |v| < 2^(E+1): X is ⌊E log10 2⌋ or one more (78913 / 2^18 is log10 2 to within
   * 8e−7, which may put the estimate one further off: corrected below) */
  {
    int E = e + 63 - __builtin_clzll (m);
    x = E >= 0 ? (E * 78913) >> 18 : -((-E * 78913 + (1 << 18) - 1) >> 18);
  }
  for (int tries = 0; tries < 3; tries++)
    {
      if (!scaled (m, e, 16 - x, &q, &half))
        return fallback (buf, v);
      if (q < lo17)
        x--;
      else if (q >= hi17)
        x++;
      else
        {
          ok = 1;
          break;
        }
    }
  if (!ok)
    return fallback (buf, v);
  if (half > 0 || (half == 0 && (q & 1)))
    q++;
  if (q == hi17)
    {
      q = lo17;
      x++;
    }

  /* the 17 digits, then without trailing zeros */
  {
    uint64_t hi = q / 100000000; /* below 10^9 */

    digits[0] = (char) ('0' + hi / 100000000);
    put8 (digits + 1, (uint32_t) (hi % 100000000));
    put8 (digits + 9, (uint32_t) (q % 100000000));
  }
  nd = 17;
  while (nd > 1 && digits[nd - 1] == '0')
    nd--;

  if (x >= -4 && x < 17)
    {
      if (x >= 0)
        {
          int ni = x + 1;

          for (int i = 0; i < ni; i++)
            buf[len++] = digits[i];
          if (nd > ni)
            {
              buf[len++] = '.';
              for (int i = ni; i < nd; i++)
                buf[len++] = digits[i];
            }
        }
      else
        {
          buf[len++] = '0';
          buf[len++] = '.';
          for (int i = 0; i < -x - 1; i++)
            buf[len++] = '0';
          for (int i = 0; i < nd; i++)
            buf[len++] = digits[i];
        }
    }
  else
    {
      int ax = x < 0 ? -x : x;

      buf[len++] = digits[0];
      if (nd > 1)
        {
          buf[len++] = '.';
          for (int i = 1; i < nd; i++)
            buf[len++] = digits[i];
        }
      buf[len++] = 'e';
      buf[len++] = x < 0 ? '-' : '+';
      if (ax >= 100)
        buf[len++] = (char) ('0' + ax / 100);
      buf[len++] = (char) ('0' + ax / 10 % 10);
      buf[len++] = (char) ('0' + ax % 10);
    }
  buf[len] = '\0';
  return len;
}
