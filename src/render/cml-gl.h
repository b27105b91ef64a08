/* cml-gl.h — small OpenGL helpers shared by the scene and plot renderers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * No GTK here: these run under GtkGLArea and headlessly through EGL alike.  Every
 * function that touches GL needs a current context.  Matrices are column-major 4×4
 * (element (row r, column c) at m[c*4 + r]), as glUniformMatrix4fv expects with
 * transpose = GL_FALSE.
 */
#pragma once

#include <epoxy/gl.h>
#include <glib.h>

G_BEGIN_DECLS

/* Loads the vertex and fragment shader text from GResources (full paths such as
 * "/org/cmlab/Cmlab/shaders/scene.vert"), compiles and links them.  Returns the program
 * or 0 with ERROR set (G_IO_ERROR_FAILED) carrying the GLSL compiler or linker log. */
GLuint   cml_gl_program_from_resources (const char *vert_resource,
                                        const char *frag_resource,
                                        GError    **error);

/* The same with DEFINES (e.g. "#define MODE 1\n"; may be NULL) inserted after each
 * shader's #version line, to make specialised variants of one source. */
GLuint   cml_gl_program_from_resources_with_defines (const char *vert_resource,
                                                     const char *frag_resource,
                                                     const char *defines,
                                                     GError    **error);

/* TRUE when the current context is OpenGL ES (choose the "-es" shader variants). */
gboolean cml_gl_is_es (void);

typedef struct
{
  float m[16];
} CmlMat4;

typedef struct
{
  float x, y, z;
} CmlVec3;

void    cml_mat4_identity (CmlMat4 *out);
/* out = a · b (OUT may alias A or B). */
void    cml_mat4_multiply (CmlMat4 *out, const CmlMat4 *a, const CmlMat4 *b);
/* Right-handed perspective (like gluPerspective); FOVY in radians. */
void    cml_mat4_perspective (CmlMat4 *out, float fovy, float aspect, float near, float far);
/* Orthographic projection (like glOrtho). */
void    cml_mat4_ortho (CmlMat4 *out, float left, float right, float bottom, float top,
                        float near, float far);
/* View matrix looking from EYE at CENTER with UP (like gluLookAt). */
void    cml_mat4_look_at (CmlMat4 *out, CmlVec3 eye, CmlVec3 center, CmlVec3 up);
void    cml_mat4_translation (CmlMat4 *out, float x, float y, float z);
void    cml_mat4_scale (CmlMat4 *out, float sx, float sy, float sz);
/* Rotation by ANGLE radians about AXIS (need not be unit length; right-hand rule). */
void    cml_mat4_rotation (CmlMat4 *out, float angle, CmlVec3 axis);
/* Rotation of the unit quaternion (q0 scalar, q1, q2, q3); normalised first. */
void    cml_mat4_from_quaternion (CmlMat4 *out, double q0, double q1, double q2, double q3);
/* The upper-left 3×3 as a column-major mat3 (normal matrix of a rotation + uniform
 * scale, which is all the scene uses). */
void    cml_mat4_to_mat3 (const CmlMat4 *m, float out[9]);
/* Transforms the point P (w = 1) and returns x, y, z (divided by w). */
CmlVec3 cml_mat4_transform_point (const CmlMat4 *m, CmlVec3 p);

G_END_DECLS
