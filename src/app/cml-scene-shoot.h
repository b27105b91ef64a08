/* cml-scene-shoot.h — steering a vakonomic run to a point of its 3-D scene: which scene
 * object's position the point is a target for, and the shooting (cml-shoot.h) run on a
 * worker thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The aim (cml_scene_aim_find): a scene object drawn at plain coordinates — a trail's
 * point, a sphere's centre, a point's or disc's position — whose components are base
 * coordinates or reconstruction variables (the targets) or do not move (numbers and
 * parameters: the plane clicks are taken in).  The one with the most such components
 * wins; among equals a trail (the path the run draws), else the first in the model file.
 * For the plate-ball, "point = x1, x2, 0" of its path: the targets x1, x2 on the table
 * z = 0; for Martinet, "point = x1, x2, x3": all three, in space.
 */
#pragma once

#include <gio/gio.h>

#include "cml-shoot.h"
#include "cml-system.h"

G_BEGIN_DECLS

/* The end time used when the run has not yet run (in the model's time unit). */
#define CML_SCENE_SHOOT_DEFAULT_T 5.0
/* The planned path is sampled at this many intervals of [t0, T]. */
#define CML_SCENE_SHOOT_PATH_POINTS 200

typedef struct
{
  guint       object;    /* index in model->scene */
  const char *key;       /* its position property: "point", "center" or "position" */
  const char *names[3];  /* the coordinate each component is; NULL: a fixed component */
  guint       n;         /* targets: the non-NULL names */
} CmlSceneAim;

/* The aim for SYS's scene (see the top of the file).  FALSE, with *WHY (free it; may be
 * NULL) saying in plain words why, when SYS is not vakonomic or no scene object qualifies. */
gboolean cml_scene_aim_find (CmlSystem *sys, CmlSceneAim *aim, char **why);

/* The outcome of a shooting (cml_scene_shoot_finish). */
typedef struct
{
  CmlShootResult *shoot;      /* momenta, conjugate times, residual */
  guint           n_values;   /* the initial values to restart from (names and values) */
  char          **names;
  double         *values;
  double         *conjugate_points;  /* 3 per conjugate time: the aimed object's position */
  double          end[3];     /* the aimed object's position at T on the extremal found */
  GArray         *path;       /* double triples: the aimed object's position from t0 to T
                               * (CML_SCENE_SHOOT_PATH_POINTS + 1 of them, evenly in time) */
} CmlSceneShootResult;

void cml_scene_shoot_result_free (CmlSceneShootResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlSceneShootResult, cml_scene_shoot_result_free)

/* Shoots on a worker thread: from SIM (taken: its state is the guess, its integrator
 * used) to the values TARGET (3, one per component of AIM's object; the fixed ones
 * ignored) at T_END.  The result's values are the momenta found and, for each name in
 * ALSO (NULL-terminated, may be NULL) that is an observable, its value at the start of
 * the extremal found (velocities the restart also gives, kept consistent).  Cancelling
 * CANCEL makes the finish fail with G_IO_ERROR_CANCELLED (the core's Newton iteration is
 * not interrupted: its result is dropped). */
void                 cml_scene_shoot_async (CmlSimulation *sim, const CmlSceneAim *aim, const double target[3],
                                            double t_end, const char *const *also, GCancellable *cancel,
                                            GAsyncReadyCallback callback, gpointer data);
CmlSceneShootResult *cml_scene_shoot_finish (GAsyncResult *result, GError **error);

G_END_DECLS
