#version 330 core

/* See plot.vert.  Output is premultiplied (blend with ONE, ONE_MINUS_SRC_ALPHA). */
#ifndef MODE
#define MODE 0
#endif

in vec4 v_color;
in vec2 v_local;
flat in vec3 v_shape;

uniform sampler2D u_atlas;              /* MODE 1: one-channel coverage of the labels */

out vec4 frag_color;

void
main ()
{
#if MODE == 0
  /* distance to the segment [0, length] × {0}: a capsule of radius half-width (a bar
   * measures along the segment only) */
  float dx = max (max (-v_local.x, v_local.x - v_shape.x), 0.0);
  float dist = length (vec2 (dx, v_shape.z > 0.5 ? 0.0 : v_local.y));
  float a = clamp (v_shape.y + 0.5 - dist, 0.0, 1.0);
#else
  float a = texture (u_atlas, v_local).r;
#endif
  a *= v_color.a;
  frag_color = vec4 (v_color.rgb * a, a);
}
