/* cml-test-gate.c — a test's gate for work on a worker thread (see cml-test-gate.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cml-test-gate.h"

void
cml_test_gate_wait (const char *env_name)
{
  const char *gate = g_getenv (env_name);

  while (gate && *gate && !g_file_test (gate, G_FILE_TEST_EXISTS))
    g_usleep (20000);
}
