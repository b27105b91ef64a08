/* cml-render-cmd.h — `cmlab-cli render`: an animation of a model, made with no display.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Runs `cmlab-cli render` with the arguments after "render" (MODEL [--set P=V]...
 * [--init S=V]... --t-end T --fps F --size WxH [--frame lab|table] [--with-plot COL]
 * [--speed S] [--integrator NAME] [--rtol R] [--atol A] [--progress lines]
 * -o FILE.{mp4,webm,gif} or -o DIR/NAME-%05d.png).  Returns the exit status:
 * 0; 1 when the simulation fails (the message names the time); 2 for usage and model
 * errors, a missing ffmpeg or OpenGL, and output that cannot be written (a full disk);
 * 130 when interrupted.  Nothing is left under the requested name unless the export
 * succeeded. */
int cml_render_main (int argc, char **argv);

G_END_DECLS
