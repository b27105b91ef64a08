/* cml-gl.c — shader programs from GResources and 4×4 matrix helpers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-gl"

#include "cml-gl.h"

#include "cml-resources.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

/* NULL when OBJECT, a shader or a program, compiled or linked (STATUS: GL_COMPILE_STATUS or
 * GL_LINK_STATUS); else the compiler's or linker's log, stripped (g_free it).  Shaders and
 * programs ask for status and log alike but through functions of their own: GET_IV and
 * GET_LOG are glGetShaderiv and glGetShaderInfoLog, or the glGetProgram… pair. */
static char *
failure_log (GLuint object, GLenum status, PFNGLGETSHADERIVPROC get_iv,
             PFNGLGETSHADERINFOLOGPROC get_log)
{
  GLint ok = GL_FALSE;
  get_iv (object, status, &ok);
  if (ok)
    return NULL;

  GLint log_len = 0;
  get_iv (object, GL_INFO_LOG_LENGTH, &log_len);
  char *log = g_malloc0 (MAX (log_len, 1) + 1);
  get_log (object, log_len, NULL, log);
  return g_strstrip (log);
}

static GLuint
compile_shader (GLenum type, const char *resource, const char *defines, GError **error)
{
  g_autoptr (GBytes) bytes = g_resources_lookup_data (resource, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (bytes == NULL)
    return 0;

  gsize size = 0;
  const char *text = g_bytes_get_data (bytes, &size);
  /* GLSL wants #version first: the defines go right after that line, and #line keeps
   * the compiler's line numbers those of the file */
  const char *nl = memchr (text, '\n', size);
  gsize head = nl && g_str_has_prefix (text, "#version") ? (gsize) (nl - text) + 1 : 0;
  g_autofree char *middle = g_strdup_printf ("%s\n#line %d\n", defines ? defines : "", head ? 2 : 1);
  const char *parts[3] = { text, middle, text + head };
  GLint lens[3] = { (GLint) head, (GLint) strlen (middle), (GLint) (size - head) };
  GLuint shader = glCreateShader (type);
  glShaderSource (shader, 3, parts, lens);
  glCompileShader (shader);

  g_autofree char *log = failure_log (shader, GL_COMPILE_STATUS, glGetShaderiv, glGetShaderInfoLog);
  if (log)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot compile %s: %s", resource, log);
      glDeleteShader (shader);
      return 0;
    }
  return shader;
}

GLuint
cml_gl_program_from_resources (const char *vert_resource,
                               const char *frag_resource,
                               GError    **error)
{
  return cml_gl_program_from_resources_with_defines (vert_resource, frag_resource, NULL, error);
}

GLuint
cml_gl_program_from_resources_with_defines (const char *vert_resource,
                                            const char *frag_resource,
                                            const char *defines,
                                            GError    **error)
{
  g_return_val_if_fail (vert_resource != NULL && frag_resource != NULL, 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  /* The shaders live in the one resource bundle, compiled into the render library; this
   * reference keeps the linker from dropping it (its constructor registers it). */
  (void) cml_get_resource ();

  GLuint vs = compile_shader (GL_VERTEX_SHADER, vert_resource, defines, error);
  if (vs == 0)
    return 0;
  GLuint fs = compile_shader (GL_FRAGMENT_SHADER, frag_resource, defines, error);
  if (fs == 0)
    {
      glDeleteShader (vs);
      return 0;
    }

  GLuint program = glCreateProgram ();
  glAttachShader (program, vs);
  glAttachShader (program, fs);
  glLinkProgram (program);
  /* The program keeps the compiled code; the shader objects are not needed any more. */
  glDetachShader (program, vs);
  glDetachShader (program, fs);
  glDeleteShader (vs);
  glDeleteShader (fs);

  g_autofree char *log = failure_log (program, GL_LINK_STATUS, glGetProgramiv, glGetProgramInfoLog);
  if (log)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "Cannot link %s + %s: %s", vert_resource, frag_resource, log);
      glDeleteProgram (program);
      return 0;
    }
  return program;
}

gboolean
cml_gl_is_es (void)
{
  return !epoxy_is_desktop_gl ();
}

/* ---- matrices (column-major: m[c*4 + r]) ------------------------------------------- */

#define M(a, r, c) ((a)->m[(c) * 4 + (r)])

void
cml_mat4_identity (CmlMat4 *out)
{
  memset (out, 0, sizeof *out);
  out->m[0] = out->m[5] = out->m[10] = out->m[15] = 1.f;
}

void
cml_mat4_multiply (CmlMat4 *out, const CmlMat4 *a, const CmlMat4 *b)
{
  CmlMat4 r;
  for (int c = 0; c < 4; c++)
    for (int i = 0; i < 4; i++)
      {
        float s = 0.f;
        for (int k = 0; k < 4; k++)
          s += M (a, i, k) * M (b, k, c);
        M (&r, i, c) = s;
      }
  *out = r;
}

void
cml_mat4_perspective (CmlMat4 *out, float fovy, float aspect, float near, float far)
{
  float f = 1.f / tanf (fovy / 2.f);
  memset (out, 0, sizeof *out);
  M (out, 0, 0) = f / aspect;
  M (out, 1, 1) = f;
  M (out, 2, 2) = (far + near) / (near - far);
  M (out, 2, 3) = 2.f * far * near / (near - far);
  M (out, 3, 2) = -1.f;
}

void
cml_mat4_ortho (CmlMat4 *out, float left, float right, float bottom, float top,
                float near, float far)
{
  cml_mat4_identity (out);
  M (out, 0, 0) = 2.f / (right - left);
  M (out, 1, 1) = 2.f / (top - bottom);
  M (out, 2, 2) = -2.f / (far - near);
  M (out, 0, 3) = -(right + left) / (right - left);
  M (out, 1, 3) = -(top + bottom) / (top - bottom);
  M (out, 2, 3) = -(far + near) / (far - near);
}

static CmlVec3
vnorm (CmlVec3 v)
{
  float l = sqrtf (v.x * v.x + v.y * v.y + v.z * v.z);
  if (l > 0.f)
    {
      v.x /= l;
      v.y /= l;
      v.z /= l;
    }
  return v;
}

static CmlVec3
vcross (CmlVec3 a, CmlVec3 b)
{
  return (CmlVec3) { a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
}

void
cml_mat4_look_at (CmlMat4 *out, CmlVec3 eye, CmlVec3 center, CmlVec3 up)
{
  CmlVec3 f = vnorm ((CmlVec3) { center.x - eye.x, center.y - eye.y, center.z - eye.z });
  CmlVec3 s = vnorm (vcross (f, up));
  CmlVec3 u = vcross (s, f);

  cml_mat4_identity (out);
  M (out, 0, 0) = s.x;  M (out, 0, 1) = s.y;  M (out, 0, 2) = s.z;
  M (out, 1, 0) = u.x;  M (out, 1, 1) = u.y;  M (out, 1, 2) = u.z;
  M (out, 2, 0) = -f.x; M (out, 2, 1) = -f.y; M (out, 2, 2) = -f.z;
  M (out, 0, 3) = -(s.x * eye.x + s.y * eye.y + s.z * eye.z);
  M (out, 1, 3) = -(u.x * eye.x + u.y * eye.y + u.z * eye.z);
  M (out, 2, 3) = f.x * eye.x + f.y * eye.y + f.z * eye.z;
}

void
cml_mat4_translation (CmlMat4 *out, float x, float y, float z)
{
  cml_mat4_identity (out);
  M (out, 0, 3) = x;
  M (out, 1, 3) = y;
  M (out, 2, 3) = z;
}

void
cml_mat4_scale (CmlMat4 *out, float sx, float sy, float sz)
{
  cml_mat4_identity (out);
  M (out, 0, 0) = sx;
  M (out, 1, 1) = sy;
  M (out, 2, 2) = sz;
}

void
cml_mat4_rotation (CmlMat4 *out, float angle, CmlVec3 axis)
{
  CmlVec3 a = vnorm (axis);
  float c = cosf (angle), s = sinf (angle), t = 1.f - c;

  cml_mat4_identity (out);
  M (out, 0, 0) = t * a.x * a.x + c;
  M (out, 0, 1) = t * a.x * a.y - s * a.z;
  M (out, 0, 2) = t * a.x * a.z + s * a.y;
  M (out, 1, 0) = t * a.x * a.y + s * a.z;
  M (out, 1, 1) = t * a.y * a.y + c;
  M (out, 1, 2) = t * a.y * a.z - s * a.x;
  M (out, 2, 0) = t * a.x * a.z - s * a.y;
  M (out, 2, 1) = t * a.y * a.z + s * a.x;
  M (out, 2, 2) = t * a.z * a.z + c;
}

void
cml_mat4_from_quaternion (CmlMat4 *out, double q0, double q1, double q2, double q3)
{
  double n = sqrt (q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3);
  if (!(n > 0.0) || !isfinite (n))
    {
      cml_mat4_identity (out);
      return;
    }
  double w = q0 / n, x = q1 / n, y = q2 / n, z = q3 / n;

  cml_mat4_identity (out);
  M (out, 0, 0) = (float) (1 - 2 * (y * y + z * z));
  M (out, 0, 1) = (float) (2 * (x * y - w * z));
  M (out, 0, 2) = (float) (2 * (x * z + w * y));
  M (out, 1, 0) = (float) (2 * (x * y + w * z));
  M (out, 1, 1) = (float) (1 - 2 * (x * x + z * z));
  M (out, 1, 2) = (float) (2 * (y * z - w * x));
  M (out, 2, 0) = (float) (2 * (x * z - w * y));
  M (out, 2, 1) = (float) (2 * (y * z + w * x));
  M (out, 2, 2) = (float) (1 - 2 * (x * x + y * y));
}

void
cml_mat4_to_mat3 (const CmlMat4 *m, float out[9])
{
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++)
      out[c * 3 + r] = M (m, r, c);
}

CmlVec3
cml_mat4_transform_point (const CmlMat4 *m, CmlVec3 p)
{
  float x = M (m, 0, 0) * p.x + M (m, 0, 1) * p.y + M (m, 0, 2) * p.z + M (m, 0, 3);
  float y = M (m, 1, 0) * p.x + M (m, 1, 1) * p.y + M (m, 1, 2) * p.z + M (m, 1, 3);
  float z = M (m, 2, 0) * p.x + M (m, 2, 1) * p.y + M (m, 2, 2) * p.z + M (m, 2, 3);
  float w = M (m, 3, 0) * p.x + M (m, 3, 1) * p.y + M (m, 3, 2) * p.z + M (m, 3, 3);
  if (w != 0.f && w != 1.f)
    {
      x /= w;
      y /= w;
      z /= w;
    }
  return (CmlVec3) { x, y, z };
}
