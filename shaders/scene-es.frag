#version 300 es
precision highp float;
precision highp int;

/* Colour = mix (u_color, u_color2, m) where m is the vertex mark, or a pattern painted in
 * object space so that turning is visible: octants on the ball, sectors on the table, a
 * grid on the plane; u_accent draws seams and reference lines.  Pattern edges are
 * smoothed over one pixel with fwidth, which keeps them clean without multisampling.
 * Lighting: Blinn–Phong, one key light and a sky/ground ambient; the flat table and
 * floor are lit per vertex (scene.vert).
 *
 * MODE (0 mesh, 1 trail) and PATTERN (0 vertex mark, 1 ball, 2 table, 3 floor grid,
 * 4 disc, 5 grid lines only, 6 contact shadow) are #defined by the loader. */

#ifndef MODE
#define MODE 0
#endif
#ifndef PATTERN
#define PATTERN 0
#endif

in vec3 v_world;
in vec3 v_normal;
in vec3 v_object;
in float v_mark;
in float v_side;
in float v_light;

uniform vec4 u_color;
uniform vec4 u_color2;
uniform vec4 u_accent;
uniform float u_param;        /* grid: cell size in world units */
uniform float u_line_width;   /* trails and grid lines, pixels */
uniform vec3 u_eye;
uniform vec3 u_light_dir;     /* towards the light, unit */

out vec4 frag_color;

/* 1 where |x| < half_width (in units of x), smoothed over a pixel */
float
band (float x, float half_width)
{
  float w = max (fwidth (x), 1e-6);
  return 1.0 - smoothstep (half_width - w, half_width + w, abs (x));
}

/* 0/1 by the sign of x, smoothed over a pixel */
float
side_of (float x)
{
  float w = max (fwidth (x), 1e-12);
  return smoothstep (-w, w, x);
}

/* grid lines of LINE_PX pixels every CELL (.x) and the two axes, twice as wide (.y) */
vec2
grid (vec2 p, float cell, float line_px)
{
  vec2 g = p / cell;
  vec2 w = max (fwidth (g), vec2 (1e-6));
  vec2 d = abs (fract (g - 0.5) - 0.5) / w;
  float lines = 1.0 - clamp (min (d.x, d.y) - 0.5 * line_px + 0.5, 0.0, 1.0);
  vec2 a = abs (g) / w;
  float axes = 1.0 - clamp (min (a.x, a.y) - line_px + 0.5, 0.0, 1.0);
  /* fade far lines before they alias into moiré */
  float fade = 1.0 - smoothstep (0.15, 0.5, max (w.x, w.y));
  return vec2 (lines * fade, axes * (0.5 + 0.5 * fade));
}

vec3
shade (vec3 base)
{
  vec3 n = normalize (v_normal);
  if (!gl_FrontFacing)
    n = -n;
  vec3 v = normalize (u_eye - v_world);
  vec3 h = normalize (u_light_dir + v);
  float diffuse = max (dot (n, u_light_dir), 0.0);
  float spec = pow (max (dot (n, h), 0.0), 40.0) * 0.28;
  float ambient = mix (0.32, 0.48, 0.5 + 0.5 * n.z);
  return base * (ambient + 0.62 * diffuse) + vec3 (spec);
}

void
main ()
{
#if MODE == 1
  /* trail: v_mark is the age (0 new .. 0.7 faded); the edges fade over the fringe */
  float half_px = 0.5 * u_line_width + 1.0;
  float edge = (1.0 - abs (v_side)) * half_px;
  frag_color = vec4 (mix (u_color.rgb, u_color2.rgb, v_mark), u_color.a * clamp (edge, 0.0, 1.0));
#elif PATTERN == 5
  /* grid lines only, over a transparent quad */
  vec2 g = grid (v_world.xy, u_param, u_line_width);
  float a = u_color.a * max (g.x, g.y);
  if (a < 0.004)
    discard;
  frag_color = vec4 (mix (u_color2.rgb, u_accent.rgb, g.y), a);
#elif PATTERN == 6
  /* a soft dark blob under a ball, so that it reads as resting on the floor */
  float r = length (v_object.xy);
  float a = 1.0 - smoothstep (0.15, 1.0, r);
  frag_color = vec4 (u_color.rgb, u_color.a * a * a);
#else
  float m = v_mark;
  float accent = 0.0;
#if PATTERN == 1
  /* alternating octants with ink seams on the three great circles */
  vec3 p = normalize (v_object);
  m *= side_of (p.x * p.y * p.z);
  accent = max (band (p.x, 0.025), max (band (p.y, 0.025), band (p.z, 0.025)));
#elif PATTERN == 2
  /* table top (unit radius): twelve sectors by the sign of sin 6φ = Im (x + iy)^6 / r^6,
   * a middle ring, a dark rim, an ink reference radius along body +x and a hub */
  vec2 q = v_object.xy;
  float r = length (q);
  float x2 = q.x * q.x, y2 = q.y * q.y;
  float s6 = q.x * q.y * (6.0 * x2 * x2 - 20.0 * x2 * y2 + 6.0 * y2 * y2);
  m = v_mark * min (0.45 * side_of (s6) * step (0.08, r) + band (r - 0.5, 0.006)
                    + band (r - 0.97, 0.03), 1.0);
  accent = v_mark * max (band (q.y, 0.012) * step (0.0, q.x), band (r, 0.035));
#elif PATTERN == 3
  vec2 g = grid (v_world.xy, u_param, u_line_width);
  m = g.x;
  accent = g.y;
#elif PATTERN == 4
  /* a disc: darker rim */
  m = band (length (v_object.xy) - 0.96, 0.04);
#endif
  vec3 base = mix (mix (u_color.rgb, u_color2.rgb, clamp (m, 0.0, 1.0)), u_accent.rgb,
                   clamp (accent, 0.0, 1.0));
#if PATTERN == 2 || PATTERN == 3
  frag_color = vec4 (base * v_light, u_color.a);
#else
  frag_color = vec4 (shade (base), u_color.a);
#endif
#endif
}
