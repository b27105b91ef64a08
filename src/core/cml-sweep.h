/* cml-sweep.h — a parameter sweep: the grid of parameter values and its runs on worker
 * threads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-simulation.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct
{
  char  *name;
  double a, b;
  guint  n;
  int    param; /* index in the model's parameters */
} Vary;

/* The sweep, shared by the threads.  Read-only while they run but for what the lock
 * guards (done, why) and the counter. */
typedef struct
{
  CmlSystem                  *sys;
  const double               *base;      /* every parameter, --set applied */
  guint                       n_params;
  const Vary                 *vary;
  guint                       n_vary;
  guint64                     shard_i, shard_n; /* 0-based shard and the count */
  guint64                     n_points;  /* in this shard */
  const CmlIntegratorOptions *iopt;
  GHashTable                 *given;     /* --init */
  const double               *at;
  guint                       n_at;
  const int                  *measure;   /* observable indices */
  guint                       n_measures;
  guint                       n_obs;
  double                     *values;    /* n_points × n_measures × n_at */
  gint                        next;      /* the next point to take (atomic) */
  GMutex                      lock;
  GCond                       cond;
  gboolean                   *done;
  char                      **why;       /* a failed point's reason, or NULL */
} Sweep;

double   vary_value (const Vary *v, guint i);
guint64  grid_index (const Sweep *sw, guint64 k, guint *idx);
void     run_point (Sweep *sw, guint64 k, double *values, char **why);
gpointer sweep_thread (gpointer data);

G_END_DECLS
