/* cml-runner-commands.c — what any thread asks of a runner: each request (play, pause,
 * step, seek, reset, speed, a parameter, the integrator, the system, a recording, sync) is a command
 * queued under cmd_lock for the worker (cml-runner.c runs them in order); sync waits until
 * the worker has run every command queued before it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-runner"

#include "cml-runner-private.h"

#include "cml-error.h"
#include "cml-resident.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

void
cml_runner_command_free (Command *cmd)
{
  g_free (cmd->name);
  g_clear_pointer (&cmd->given, g_hash_table_unref);
  g_clear_pointer (&cmd->sys, cml_system_unref);
  g_clear_pointer (&cmd->recording, cml_recording_unref);
  g_free (cmd);
}

static void
push (CmlRunner *r, Command *cmd)
{
  pthread_mutex_lock (&r->cmd_lock);
  g_queue_push_tail (&r->commands, cmd);
  pthread_cond_signal (&r->cmd_cond);
  pthread_mutex_unlock (&r->cmd_lock);
}

static Command *
command_new (CmdKind kind)
{
  Command *cmd = g_new0 (Command, 1);

  cmd->kind = kind;
  return cmd;
}

/* Any thread. */
void
cml_runner_play (CmlRunner *runner)
{
  g_return_if_fail (runner != NULL);
  push (runner, command_new (CMD_PLAY));
}

/* Any thread. */
void
cml_runner_pause (CmlRunner *runner)
{
  g_return_if_fail (runner != NULL);
  push (runner, command_new (CMD_PAUSE));
}

/* Any thread. */
void
cml_runner_set_recording (CmlRunner *runner, CmlRecording *rec)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);

  cmd = command_new (CMD_RECORDING);
  cmd->recording = rec ? cml_recording_ref (rec) : NULL;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_step (CmlRunner *runner, double dt)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (isfinite (dt) && dt >= 0);

  cmd = command_new (CMD_STEP);
  cmd->value = dt;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_seek (CmlRunner *runner, double t)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (isfinite (t));

  cmd = command_new (CMD_SEEK);
  cmd->value = t;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_step_back (CmlRunner *runner, double dt)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (isfinite (dt) && dt >= 0);

  cmd = command_new (CMD_STEP_BACK);
  cmd->value = dt;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_set_reversed (CmlRunner *runner, gboolean reversed)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);

  cmd = command_new (CMD_DIRECTION);
  cmd->value = reversed ? -1 : 1;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_reset (CmlRunner *runner, GHashTable *given)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);

  cmd = command_new (CMD_RESET);
  if (given)
    {
      GHashTableIter it;
      gpointer key, value;

      cmd->given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_hash_table_iter_init (&it, given);
      while (g_hash_table_iter_next (&it, &key, &value))
        g_hash_table_insert (cmd->given, g_strdup (key), g_memdup2 (value, sizeof (double)));
    }
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_set_speed (CmlRunner *runner, double speed)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (isfinite (speed) && speed > 0);

  cmd = command_new (CMD_SPEED);
  cmd->value = speed;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_set_param (CmlRunner *runner, const char *name, double value)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (name != NULL);

  cmd = command_new (CMD_PARAM);
  cmd->name = g_strdup (name);
  cmd->value = value;
  push (runner, cmd);
}

/* The caller's thread, the one that uses the model's expressions (see the header). */
void
cml_runner_set_integrator (CmlRunner *runner, const CmlIntegratorOptions *options)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (options != NULL);

  runner->caller_kinds |= G_GUINT64_CONSTANT (1) << options->kind;
  cml_system_prepare (runner->caller_sys, options->kind);
  cmd = command_new (CMD_INTEGRATOR);
  cmd->integ = *options;
  push (runner, cmd);
}

/* The caller's thread, the one that uses the model's expressions (see the header). */
void
cml_runner_set_system (CmlRunner *runner, CmlSystem *sys)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (sys != NULL);

  for (guint k = 0; k < CML_INTEGRATOR_N_KINDS; k++)
    if (runner->caller_kinds & (G_GUINT64_CONSTANT (1) << k))
      cml_system_prepare (sys, (CmlIntegratorKind) k);
  cml_system_ref (sys);
  cml_system_unref (runner->caller_sys);
  runner->caller_sys = sys;
  cmd = command_new (CMD_SYSTEM);
  cmd->sys = cml_system_ref (sys);
  push (runner, cmd);
}

/* Not from the worker (it would wait for itself). */
void
cml_runner_sync (CmlRunner *runner)
{
  Command *cmd;
  guint64 ticket;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (!pthread_equal (pthread_self (), runner->thread));

  /* the worker frees the command: wait on the ticket, not on it */
  cmd = command_new (CMD_SYNC);
  pthread_mutex_lock (&runner->cmd_lock);
  ticket = cmd->ticket = ++runner->sync_requested;
  g_queue_push_tail (&runner->commands, cmd);
  pthread_cond_signal (&runner->cmd_cond);
  while (runner->sync_done < ticket)
    pthread_cond_wait (&runner->sync_cond, &runner->cmd_lock);
  pthread_mutex_unlock (&runner->cmd_lock);
}

/* Any thread. */
guint64
cml_runner_n_commands (CmlRunner *runner)
{
  g_return_val_if_fail (runner != NULL, 0);

  return atomic_load_explicit (&runner->n_commands, memory_order_relaxed);
}
