/* cml-offscreen.c — a windowless, displayless OpenGL context through EGL.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The display is looked for in the order that needs the least of the machine: Mesa's
 * surfaceless platform (only the driver), an EGL device (the EXT device platform, e.g. a
 * GPU without a display server), then EGL's default display (which may well want a
 * display server).  The context is made current without a surface where
 * EGL_KHR_surfaceless_context allows it, else with a 1×1 pbuffer; all drawing goes to our
 * framebuffer object anyway.
 *
 * epoxy loads EGL as it loads GL, so no EGL header other than <epoxy/egl.h> is used and
 * a machine without libEGL gets a message rather than a failure to start.
 */
#define G_LOG_DOMAIN "cml-offscreen"

#include "cml-offscreen.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <string.h>

#include "cml-error.h"

#define RING 3  /* pixel-buffer objects in flight */

struct _CmlOffscreen
{
  EGLDisplay display;
  EGLContext context;
  EGLSurface pbuffer;  /* EGL_NO_SURFACE where surfaceless contexts are allowed */
  gboolean   es;
  char      *description;

  int        width, height;
  guint      samples;          /* 0: single-sampled */
  GLuint     fbo, color, depth; /* the drawing target (multisampled if samples > 1) */
  GLuint     resolve_fbo, resolve_color; /* single-sampled copy to read (samples > 1) */

  GLuint     pbo[RING];
  GLsync     fence[RING];
  guint      head;             /* ring slot of the oldest pending read */
  guint      n_pending;
};

#define NO_GL_PREFIX "no OpenGL without a display: "

static const char *
egl_error_string (EGLint e)
{
  switch (e)
    {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return "EGL error";
    }
}

/* ---- the display ------------------------------------------------------------------ */

static gboolean
try_initialize (EGLDisplay display)
{
  EGLint major = 0, minor = 0;
  return display != EGL_NO_DISPLAY && eglInitialize (display, &major, &minor);
}

/* Finds and initializes a display that needs no display server; *HOW names it. */
static EGLDisplay
open_display (const char **how, GError **error)
{
  /* client extensions (EGL 1.5 or EGL_EXT_client_extensions); NULL where neither */
  const char *client = eglQueryString (EGL_NO_DISPLAY, EGL_EXTENSIONS);
  gboolean platform_base = client && (epoxy_extension_in_string (client, "EGL_EXT_platform_base")
                                      || epoxy_extension_in_string (client, "EGL_KHR_platform_base"));
  EGLDisplay display;

  if (platform_base && epoxy_extension_in_string (client, "EGL_MESA_platform_surfaceless"))
    {
      display = eglGetPlatformDisplayEXT (EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
      if (try_initialize (display))
        {
          *how = "EGL surfaceless";
          return display;
        }
    }

  if (platform_base && epoxy_extension_in_string (client, "EGL_EXT_platform_device")
      && epoxy_extension_in_string (client, "EGL_EXT_device_enumeration"))
    {
      EGLDeviceEXT devices[16];
      EGLint n = 0;
      if (eglQueryDevicesEXT (G_N_ELEMENTS (devices), devices, &n))
        for (EGLint i = 0; i < n; i++)
          {
            display = eglGetPlatformDisplayEXT (EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
            if (try_initialize (display))
              {
                *how = "EGL device";
                return display;
              }
          }
    }

  display = eglGetDisplay (EGL_DEFAULT_DISPLAY);
  if (try_initialize (display))
    {
      *how = "EGL default display";
      return display;
    }

  g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
               NO_GL_PREFIX "EGL surfaceless platform not available (install libegl-mesa0)");
  return EGL_NO_DISPLAY;
}

/* ---- the context ------------------------------------------------------------------ */

/* A context of API (EGL_OPENGL_API: 3.3 core; EGL_OPENGL_ES_API: ES 3.0), current on this
 * thread, or EGL_NO_CONTEXT. */
static EGLContext
make_context (CmlOffscreen *off, EGLenum api, EGLint *egl_error)
{
  gboolean es = api == EGL_OPENGL_ES_API;
  const char *exts = eglQueryString (off->display, EGL_EXTENSIONS);
  gboolean surfaceless = exts && epoxy_extension_in_string (exts, "EGL_KHR_surfaceless_context");

  if (!eglBindAPI (api))
    {
      *egl_error = eglGetError ();
      return EGL_NO_CONTEXT;
    }

  const EGLint config_attribs[] = {
    EGL_RENDERABLE_TYPE, es ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT,
    EGL_SURFACE_TYPE, surfaceless ? EGL_DONT_CARE : EGL_PBUFFER_BIT,
    EGL_NONE,
  };
  EGLConfig config = NULL;
  EGLint n_configs = 0;
  if (!eglChooseConfig (off->display, config_attribs, &config, 1, &n_configs) || n_configs < 1)
    {
      *egl_error = eglGetError ();
      return EGL_NO_CONTEXT;
    }

  const EGLint gl_attribs[] = {
    EGL_CONTEXT_MAJOR_VERSION, 3,
    EGL_CONTEXT_MINOR_VERSION, 3,
    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
    EGL_NONE,
  };
  const EGLint es_attribs[] = {
    EGL_CONTEXT_MAJOR_VERSION, 3,
    EGL_CONTEXT_MINOR_VERSION, 0,
    EGL_NONE,
  };
  EGLContext context = eglCreateContext (off->display, config, EGL_NO_CONTEXT,
                                         es ? es_attribs : gl_attribs);
  if (context == EGL_NO_CONTEXT)
    {
      *egl_error = eglGetError ();
      return EGL_NO_CONTEXT;
    }

  EGLSurface surface = EGL_NO_SURFACE;
  if (!surfaceless)
    {
      const EGLint pbuffer_attribs[] = { EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE };
      surface = eglCreatePbufferSurface (off->display, config, pbuffer_attribs);
      if (surface == EGL_NO_SURFACE)
        {
          *egl_error = eglGetError ();
          eglDestroyContext (off->display, context);
          return EGL_NO_CONTEXT;
        }
    }
  if (!eglMakeCurrent (off->display, surface, surface, context))
    {
      *egl_error = eglGetError ();
      if (surface != EGL_NO_SURFACE)
        eglDestroySurface (off->display, surface);
      eglDestroyContext (off->display, context);
      return EGL_NO_CONTEXT;
    }
  off->pbuffer = surface;
  off->es = es;
  return context;
}

/* ---- the framebuffer ---------------------------------------------------------------- */

static void
delete_targets (CmlOffscreen *off)
{
  if (off->fbo)
    glDeleteFramebuffers (1, &off->fbo);
  if (off->resolve_fbo)
    glDeleteFramebuffers (1, &off->resolve_fbo);
  GLuint rbs[3] = { off->color, off->depth, off->resolve_color };
  for (int i = 0; i < 3; i++)
    if (rbs[i])
      glDeleteRenderbuffers (1, &rbs[i]);
  for (int i = 0; i < RING; i++)
    if (off->fence[i])
      {
        glDeleteSync (off->fence[i]);
        off->fence[i] = NULL;
      }
  if (off->pbo[0])
    glDeleteBuffers (RING, off->pbo);
  off->fbo = off->resolve_fbo = off->color = off->depth = off->resolve_color = 0;
  memset (off->pbo, 0, sizeof off->pbo);
  off->head = off->n_pending = 0;
}

static GLuint
make_renderbuffer (GLenum format, int width, int height, guint samples)
{
  GLuint rb = 0;
  glGenRenderbuffers (1, &rb);
  glBindRenderbuffer (GL_RENDERBUFFER, rb);
  if (samples > 1)
    glRenderbufferStorageMultisample (GL_RENDERBUFFER, samples, format, width, height);
  else
    glRenderbufferStorage (GL_RENDERBUFFER, format, width, height);
  glBindRenderbuffer (GL_RENDERBUFFER, 0);
  return rb;
}

static gboolean
make_targets (CmlOffscreen *off, int width, int height, guint samples, GError **error)
{
  GLint max_size = 0, max_samples = 0;
  glGetIntegerv (GL_MAX_RENDERBUFFER_SIZE, &max_size);
  if (width > max_size || height > max_size)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "%d×%d is larger than this OpenGL can draw (at most %d pixels a side)",
                   width, height, max_size);
      return FALSE;
    }
  if (samples > 1)
    {
      glGetIntegerv (GL_MAX_SAMPLES, &max_samples);
      samples = MIN (samples, (guint) MAX (max_samples, 0));
    }
  if (samples <= 1)
    samples = 0;

  off->width = width;
  off->height = height;
  off->samples = samples;

  off->color = make_renderbuffer (GL_RGBA8, width, height, samples);
  off->depth = make_renderbuffer (GL_DEPTH24_STENCIL8, width, height, samples);
  glGenFramebuffers (1, &off->fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, off->fbo);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, off->color);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, off->depth);
  GLenum status = glCheckFramebufferStatus (GL_FRAMEBUFFER);
  if (status == GL_FRAMEBUFFER_COMPLETE && samples > 1)
    {
      off->resolve_color = make_renderbuffer (GL_RGBA8, width, height, 0);
      glGenFramebuffers (1, &off->resolve_fbo);
      glBindFramebuffer (GL_FRAMEBUFFER, off->resolve_fbo);
      glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                 off->resolve_color);
      status = glCheckFramebufferStatus (GL_FRAMEBUFFER);
    }
  if (status != GL_FRAMEBUFFER_COMPLETE)
    {
      glBindFramebuffer (GL_FRAMEBUFFER, 0);
      delete_targets (off);
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "cannot make a %d×%d framebuffer (%u samples): status 0x%x", width, height,
                   samples, status);
      return FALSE;
    }

  glGenBuffers (RING, off->pbo);
  for (int i = 0; i < RING; i++)
    {
      glBindBuffer (GL_PIXEL_PACK_BUFFER, off->pbo[i]);
      glBufferData (GL_PIXEL_PACK_BUFFER, (GLsizeiptr) width * height * 4, NULL, GL_STREAM_READ);
    }
  glBindBuffer (GL_PIXEL_PACK_BUFFER, 0);
  cml_offscreen_bind (off);
  return TRUE;
}

/* ---- public ------------------------------------------------------------------------- */

CmlOffscreen *
cml_offscreen_new (int width, int height, guint samples, GError **error)
{
  g_return_val_if_fail (width > 0 && height > 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!epoxy_has_egl ())
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   NO_GL_PREFIX "libEGL not found (install libegl1 and libegl-mesa0)");
      return NULL;
    }

  g_autoptr (CmlOffscreen) off = g_new0 (CmlOffscreen, 1);
  off->display = EGL_NO_DISPLAY;
  off->context = EGL_NO_CONTEXT;
  off->pbuffer = EGL_NO_SURFACE;

  const char *how = NULL;
  off->display = open_display (&how, error);
  if (off->display == EGL_NO_DISPLAY)
    return NULL;

  /* desktop GL 3.3 core first (what the shaders are written for), then GLES 3.0 */
  EGLint gl_error = EGL_SUCCESS, es_error = EGL_SUCCESS;
  const char *api = g_getenv ("CMLAB_OFFSCREEN_API");
  gboolean skip_gl = api && g_ascii_strcasecmp (api, "gles") == 0;
  if (!skip_gl)
    off->context = make_context (off, EGL_OPENGL_API, &gl_error);
  if (off->context == EGL_NO_CONTEXT)
    off->context = make_context (off, EGL_OPENGL_ES_API, &es_error);
  if (off->context == EGL_NO_CONTEXT)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   NO_GL_PREFIX "%s offers neither OpenGL 3.3 core (%s) nor OpenGL ES 3.0 (%s)",
                   how, skip_gl ? "not tried" : egl_error_string (gl_error),
                   egl_error_string (es_error));
      return NULL;
    }

  off->description = g_strdup_printf ("%s %s on %s via %s", off->es ? "" : "OpenGL",
                                      (const char *) glGetString (GL_VERSION),
                                      (const char *) glGetString (GL_RENDERER), how);
  g_strstrip (off->description);

  if (!make_targets (off, width, height, samples, error))
    return NULL;
  return g_steal_pointer (&off);
}

void
cml_offscreen_free (CmlOffscreen *off)
{
  if (off == NULL)
    return;
  if (off->context != EGL_NO_CONTEXT)
    {
      if (eglGetCurrentContext () != off->context)
        eglMakeCurrent (off->display, off->pbuffer, off->pbuffer, off->context);
      delete_targets (off);
      eglMakeCurrent (off->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext (off->display, off->context);
    }
  if (off->pbuffer != EGL_NO_SURFACE)
    eglDestroySurface (off->display, off->pbuffer);
  /* eglTerminate would pull the display from under any other user in this process (EGL
   * displays are shared per platform and device); Mesa frees it at exit */
  if (off->display != EGL_NO_DISPLAY)
    eglReleaseThread ();
  g_free (off->description);
  g_free (off);
}

gboolean
cml_offscreen_make_current (CmlOffscreen *off, GError **error)
{
  g_return_val_if_fail (off != NULL, FALSE);

  if (!eglMakeCurrent (off->display, off->pbuffer, off->pbuffer, off->context))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "cannot make the offscreen OpenGL context current: %s",
                   egl_error_string (eglGetError ()));
      return FALSE;
    }
  return TRUE;
}

gboolean
cml_offscreen_resize (CmlOffscreen *off, int width, int height, guint samples, GError **error)
{
  g_return_val_if_fail (off != NULL && width > 0 && height > 0, FALSE);

  guint want = samples > 1 ? samples : 0;
  if (off->fbo && off->width == width && off->height == height && off->samples == want)
    return TRUE;
  delete_targets (off);
  return make_targets (off, width, height, samples, error);
}

void
cml_offscreen_bind (CmlOffscreen *off)
{
  g_return_if_fail (off != NULL);
  glBindFramebuffer (GL_FRAMEBUFFER, off->fbo);
  glViewport (0, 0, off->width, off->height);
}

int
cml_offscreen_get_width (const CmlOffscreen *off)
{
  g_return_val_if_fail (off != NULL, 0);
  return off->width;
}

int
cml_offscreen_get_height (const CmlOffscreen *off)
{
  g_return_val_if_fail (off != NULL, 0);
  return off->height;
}

guint
cml_offscreen_get_samples (const CmlOffscreen *off)
{
  g_return_val_if_fail (off != NULL, 0);
  return off->samples;
}

gboolean
cml_offscreen_is_es (const CmlOffscreen *off)
{
  g_return_val_if_fail (off != NULL, FALSE);
  return off->es;
}

const char *
cml_offscreen_describe (const CmlOffscreen *off)
{
  g_return_val_if_fail (off != NULL, NULL);
  return off->description;
}

guint
cml_offscreen_ring_size (const CmlOffscreen *off)
{
  return RING;
}

guint
cml_offscreen_n_pending (const CmlOffscreen *off)
{
  g_return_val_if_fail (off != NULL, 0);
  return off->n_pending;
}

/* Binds the single-sampled framebuffer holding the picture for reading (resolving a
 * multisampled one into its copy first). */
static void
bind_for_reading (CmlOffscreen *off)
{
  if (off->samples > 1)
    {
      glBindFramebuffer (GL_READ_FRAMEBUFFER, off->fbo);
      glBindFramebuffer (GL_DRAW_FRAMEBUFFER, off->resolve_fbo);
      glBlitFramebuffer (0, 0, off->width, off->height, 0, 0, off->width, off->height,
                         GL_COLOR_BUFFER_BIT, GL_NEAREST);
      glBindFramebuffer (GL_READ_FRAMEBUFFER, off->resolve_fbo);
    }
  else
    glBindFramebuffer (GL_READ_FRAMEBUFFER, off->fbo);
  glPixelStorei (GL_PACK_ALIGNMENT, 1);
}

/* Copies SRC (GL's rows, bottom first, tightly packed) into DST top row first, rows
 * STRIDE apart. */
static void
copy_flipped (const CmlOffscreen *off, const guint8 *src, guint8 *dst, gsize stride)
{
  gsize row = (gsize) off->width * 4;
  for (int y = 0; y < off->height; y++)
    memcpy (dst + (gsize) y * stride, src + (gsize) (off->height - 1 - y) * row, row);
}

void
cml_offscreen_read_pixels (CmlOffscreen *off, guint8 *rgba, gsize stride)
{
  g_return_if_fail (off != NULL && rgba != NULL);

  gsize row = (gsize) off->width * 4;
  if (stride == 0)
    stride = row;
  g_return_if_fail (stride >= row);

  GLint draw = 0;
  glGetIntegerv (GL_DRAW_FRAMEBUFFER_BINDING, &draw);
  bind_for_reading (off);
  glBindBuffer (GL_PIXEL_PACK_BUFFER, 0);

  /* GL's rows run bottom to top: read them in place with GL's row length set to the
   * stride, starting at the last row, and turn them over */
  if (stride % 4 == 0)
    {
      glPixelStorei (GL_PACK_ROW_LENGTH, (GLint) (stride / 4));
      glReadPixels (0, 0, off->width, off->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
      glPixelStorei (GL_PACK_ROW_LENGTH, 0);
      g_autofree guint8 *tmp = g_malloc (row);
      for (int y = 0; y < off->height / 2; y++)
        {
          guint8 *a = rgba + (gsize) y * stride, *b = rgba + (gsize) (off->height - 1 - y) * stride;
          memcpy (tmp, a, row);
          memcpy (a, b, row);
          memcpy (b, tmp, row);
        }
    }
  else
    {
      g_autofree guint8 *tmp = g_malloc (row * off->height);
      glReadPixels (0, 0, off->width, off->height, GL_RGBA, GL_UNSIGNED_BYTE, tmp);
      copy_flipped (off, tmp, rgba, stride);
    }
  glBindFramebuffer (GL_FRAMEBUFFER, off->fbo);
  glBindFramebuffer (GL_DRAW_FRAMEBUFFER, draw);
}

void
cml_offscreen_read_begin (CmlOffscreen *off)
{
  g_return_if_fail (off != NULL);
  g_return_if_fail (off->n_pending < RING);

  GLint draw = 0;
  glGetIntegerv (GL_DRAW_FRAMEBUFFER_BINDING, &draw);
  guint slot = (off->head + off->n_pending) % RING;
  bind_for_reading (off);
  glBindBuffer (GL_PIXEL_PACK_BUFFER, off->pbo[slot]);
  glReadPixels (0, 0, off->width, off->height, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
  glBindBuffer (GL_PIXEL_PACK_BUFFER, 0);
  off->fence[slot] = glFenceSync (GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  glFlush ();
  off->n_pending++;
  glBindFramebuffer (GL_FRAMEBUFFER, off->fbo);
  glBindFramebuffer (GL_DRAW_FRAMEBUFFER, draw);
}

gboolean
cml_offscreen_read_end (CmlOffscreen *off, guint8 *rgba, gsize stride)
{
  g_return_val_if_fail (off != NULL && rgba != NULL, FALSE);
  if (stride == 0)
    stride = (gsize) off->width * 4;
  g_return_val_if_fail (stride >= (gsize) off->width * 4, FALSE);

  if (off->n_pending == 0)
    return FALSE;
  guint slot = off->head;
  if (off->fence[slot])
    {
      glClientWaitSync (off->fence[slot], GL_SYNC_FLUSH_COMMANDS_BIT, GL_TIMEOUT_IGNORED);
      glDeleteSync (off->fence[slot]);
      off->fence[slot] = NULL;
    }
  gsize size = (gsize) off->width * off->height * 4;
  glBindBuffer (GL_PIXEL_PACK_BUFFER, off->pbo[slot]);
  const guint8 *src = glMapBufferRange (GL_PIXEL_PACK_BUFFER, 0, size, GL_MAP_READ_BIT);
  gboolean ok = src != NULL;
  if (ok)
    copy_flipped (off, src, rgba, stride);
  glUnmapBuffer (GL_PIXEL_PACK_BUFFER);
  glBindBuffer (GL_PIXEL_PACK_BUFFER, 0);
  off->head = (off->head + 1) % RING;
  off->n_pending--;
  if (!ok)
    g_warning ("cannot map the pixel buffer (GL error 0x%x)", glGetError ());
  return ok;
}
