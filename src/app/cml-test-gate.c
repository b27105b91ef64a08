/* cml-test-gate.c — a test's gate for work on a worker thread (see cml-test-gate.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cml-test-gate.h"

#include <sys/syscall.h>
#include <unistd.h>

void
cml_test_gate_wait (const char *env_name)
{
  const char *gate = g_getenv (env_name);

  while (gate && *gate && !g_file_test (gate, G_FILE_TEST_EXISTS))
    g_usleep (20000);
}

void
cml_test_gate_hold (const char *env_name)
{
  const char *gate = g_getenv (env_name);
  g_autofree char *held = NULL;
  /* the process's first thread (its thread id is the process id) runs the window */
  gboolean window = syscall (SYS_gettid) == getpid ();

  if (gate == NULL || *gate == '\0')
    return;
  held = g_strconcat (gate, ".held", NULL);
  (void) g_file_set_contents (held, window ? "window" : "worker", -1, NULL);
  if (!window)
    cml_test_gate_wait (env_name);
}
