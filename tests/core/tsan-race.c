/* tsan-race.c — the negative control of tools/run-tsan: a data race ThreadSanitizer must
 * report.  Two threads increment a plain int with no lock; built outside meson (it must
 * never be part of the test suite).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <pthread.h>
#include <stdio.h>

static int counter;  /* deliberately neither atomic nor locked */

static void *
bump (void *data)
{
  for (int i = 0; i < 100000; i++)
    counter++;
  return data;
}

int
main (void)
{
  pthread_t a, b;

  pthread_create (&a, NULL, bump, NULL);
  pthread_create (&b, NULL, bump, NULL);
  pthread_join (a, NULL);
  pthread_join (b, NULL);
  printf ("counter = %d (200000 without the race)\n", counter);
  return 0;
}
