#version 300 es
precision highp float;
precision highp int;

/* The scene's shaders.  Meshes (MODE 0) are transformed and lit; lines (MODE 1: trails,
 * grid lines) arrive as centre-line points, each twice, with a_side = ±1 and the tangent
 * in a_normal, and are widened here in screen space, because core-profile GL draws no
 * wide lines and a line must keep its pixel width at every zoom. */

/* MODE and PATTERN are #defined by the loader (one program each, which software GL runs
 * much faster than one program with branches) */
#ifndef MODE
#define MODE 0
#endif
#ifndef PATTERN
#define PATTERN 0
#endif

layout (location = 0) in vec3 a_position;
layout (location = 1) in vec3 a_normal;
layout (location = 2) in float a_mark;
layout (location = 3) in float a_side;

uniform mat4 u_model;
uniform mat4 u_view_proj;
uniform mat3 u_normal_matrix;
uniform vec2 u_viewport;      /* framebuffer size, pixels */
uniform float u_line_width;   /* trail width, pixels */
uniform float u_tangent_scale;/* world length of the tangent probe */
uniform vec3 u_light_dir;     /* towards the light, unit */

out vec3 v_world;
out vec3 v_normal;
out vec3 v_object;
out float v_mark;
out float v_side;
out float v_light;  /* the table: diffuse + ambient, lit here (see below) */

void
main ()
{
  vec4 world = u_model * vec4 (a_position, 1.0);
  vec4 clip = u_view_proj * world;

  v_world = world.xyz;
  v_object = a_position;
  v_normal = u_normal_matrix * a_normal;
  v_mark = a_mark;
  v_side = a_side;

  /* The table is flat: lighting it per vertex looks the same as per pixel and spares
   * software GL work on one of the largest surfaces on screen.  Seen from below it is
   * lit as from above (as the floor is, on the CPU). */
  vec3 n = normalize (v_normal);
  v_light = mix (0.32, 0.48, 0.5 + 0.5 * abs (n.z)) + 0.62 * abs (dot (n, u_light_dir));

#if MODE == 1
  {
      /* screen direction of the curve here, from a point a little way along the tangent */
      vec4 ahead = u_view_proj * (u_model * vec4 (a_position + a_normal * u_tangent_scale, 1.0));
      vec2 d = (ahead.xy / ahead.w - clip.xy / clip.w) * u_viewport;
      float len = length (d);
      d = len > 1e-6 ? d / len : vec2 (1.0, 0.0);
      /* half the width plus one pixel of fringe, which the fragment shader fades out */
      float half_px = 0.5 * u_line_width + 1.0;
      clip.xy += vec2 (-d.y, d.x) * a_side * half_px * 2.0 / u_viewport * clip.w;
      /* lines lie on the table and the floor: win the depth test against them */
      clip.z -= 4e-4 * clip.w;
  }
#endif
#if PATTERN == 5
  /* a contact shadow lies on the floor: win the depth test against it */
  clip.z -= 2e-4 * clip.w;
#endif
  gl_Position = clip;
}
