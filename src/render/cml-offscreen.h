/* cml-offscreen.h — an OpenGL context with no window and no display, for headless export.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * EGL on Mesa's surfaceless platform (EGL_PLATFORM_SURFACELESS_MESA: no X server, no
 * Wayland, no GPU needed — llvmpipe renders in software); where that platform is missing,
 * an EGL device, then EGL's default display.  Desktop OpenGL 3.3 core, else OpenGL ES
 * 3.0 (the scene and plot shaders have variants for both).  Drawing goes to a
 * framebuffer object of the requested size, optionally multisampled; reading it back
 * gives RGBA rows top first, either at once (cml_offscreen_read_pixels) or through a
 * ring of pixel-buffer objects (cml_offscreen_read_begin/end) so that the CPU can go on
 * with the next frame while the last one is copied out.
 *
 * No GTK.  A context belongs to the thread that made it: every call (and every GL call
 * made while it is current) must come from that thread.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _CmlOffscreen CmlOffscreen;

/* Makes the context and a WIDTH × HEIGHT framebuffer (SAMPLES > 1: multisampled with
 * that many samples, at most what the driver offers; 0 or 1: single-sampled), makes the
 * context current on the calling thread and binds the framebuffer.  Setting the
 * environment variable CMLAB_OFFSCREEN_API=gles skips desktop GL (to test the ES path).
 * Errors (CML_ERROR_UNSUPPORTED) say what is missing, e.g. "no OpenGL without a display:
 * EGL surfaceless platform not available (install libegl-mesa0)". */
CmlOffscreen *cml_offscreen_new (int width, int height, guint samples, GError **error);
/* Deletes the GL objects, the context and the display connection; the context must not
 * be current on another thread.  NULL is fine. */
void          cml_offscreen_free (CmlOffscreen *off);

/* Makes the context current on the calling thread again. */
gboolean      cml_offscreen_make_current (CmlOffscreen *off, GError **error);
/* Changes the framebuffer's size and samples (no-op if unchanged); drops pending reads. */
gboolean      cml_offscreen_resize (CmlOffscreen *off, int width, int height, guint samples,
                                    GError **error);
/* Binds the framebuffer for drawing (GL_FRAMEBUFFER) and sets the viewport to it. */
void          cml_offscreen_bind (CmlOffscreen *off);

int           cml_offscreen_get_width (const CmlOffscreen *off);
int           cml_offscreen_get_height (const CmlOffscreen *off);
/* The samples actually used (0: single-sampled). */
guint         cml_offscreen_get_samples (const CmlOffscreen *off);
/* TRUE for an OpenGL ES context. */
gboolean      cml_offscreen_is_es (const CmlOffscreen *off);
/* "OpenGL 4.5 (Core Profile) Mesa 22.3.6 on llvmpipe (LLVM 15.0.6, 256 bits) via EGL
 * surfaceless": what was made, for messages and logs. */
const char   *cml_offscreen_describe (const CmlOffscreen *off);

/* Reads what was drawn into RGBA (HEIGHT rows of WIDTH × 4 bytes, top row first, rows
 * STRIDE bytes apart: 0 means WIDTH × 4), waiting for the drawing to finish.  Pending
 * asynchronous reads are not disturbed. */
void          cml_offscreen_read_pixels (CmlOffscreen *off, guint8 *rgba, gsize stride);

/* Asynchronous reading: read_begin starts copying what was drawn into the next
 * pixel-buffer object of a small ring and returns at once; read_end gives the oldest
 * frame not yet collected (as read_pixels puts it) and returns FALSE if there is
 * none.  Call read_end when read_begin has been called cml_offscreen_ring_size() times
 * without it (or whenever a frame is wanted; it then waits for that frame only). */
void          cml_offscreen_read_begin (CmlOffscreen *off);
gboolean      cml_offscreen_read_end (CmlOffscreen *off, guint8 *rgba, gsize stride);
/* Frames read_begin can have in flight. */
guint         cml_offscreen_ring_size (const CmlOffscreen *off);
/* Frames begun and not yet collected. */
guint         cml_offscreen_n_pending (const CmlOffscreen *off);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlOffscreen, cml_offscreen_free)

G_END_DECLS
