/* cml-expr-print-private.h — what the plain printer (cml-expr-print.c) and the readable
 * one (cml-expr-pretty.c) share: the printer's state and the pieces each uses of the other.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-expr-private.h"

G_BEGIN_DECLS

enum
{
  PREC_SUM = 1,     /* a + b, and anything that starts with a minus sign */
  PREC_PRODUCT = 2, /* a*b, a/b */
  PREC_POWER = 3,   /* a^b */
  PREC_ATOM = 4,    /* names, numbers, calls, parenthesised */
};

typedef struct
{
  const CmlExprCtx *ctx;
  GString          *s;
  gboolean          negate_sum; /* print the next sum as its negation */
  double            sum_scale;  /* ... and with its coefficients divided by this */
  gsize             max_len;    /* stop printing once the text is longer than this */
  gboolean          over;       /* ... which has happened: the rest is skipped */
  gboolean          pretty;     /* Unicode text for reading (see the top of the file) */
  guint             exact;      /* > 0: numbers in shortest text that reads back exactly */
} Printer;

typedef struct
{
  CmlExpr *base;
  CmlExpr *exp; /* NULL: exponent 1 */
} PFactor;

/* A number's text (cml-expr-print-number.c). */
typedef struct
{
  gboolean rational;    /* p/q (q may be 1); else text */
  gint64   p, q;
  gboolean exact_div;   /* "p/q" reads back as the number */
  gboolean exact_split; /* "p*x/q" reads back as the number times x: p * (1/q) */
  char     text[G_ASCII_DTOSTR_BUF_SIZE];
} NumText;

#define MINUS "\u2212" /* − */
#define DOT   "\u00b7" /* · */

/* cml-expr-pretty.c */
void     cml_expr_append_minus (Printer *pr);
gboolean cml_expr_starts_with_minus (const char *s, gsize *len);
void     cml_expr_append_pretty_name (GString *s, const char *name, gboolean dot);
void     cml_expr_append_superscript_int (GString *s, gint64 v);
void     cml_expr_join_factors (Printer *pr, gsize prev, gsize at);

/* cml-expr-print-number.c */
void     cml_expr_number_text (double v, gboolean exact, NumText *nt);
void     cml_expr_number_text_pr (const Printer *pr, double v, NumText *nt);
void     cml_expr_append_int (GString *s, gint64 v);
void     cml_expr_append_number_text (GString *s, const NumText *nt);

/* cml-expr-print-order.c */
void     cml_expr_pfactor_split (CmlExpr *f, PFactor *out);
PFactor *cml_expr_get_factors (Printer *pr, CmlExpr *e, guint *n);
int      cml_expr_term_cmp (Printer *pr, CmlExpr *a, CmlExpr *b);

/* cml-expr-print.c */
void     cml_expr_print_expr (Printer *pr, CmlExpr *e, int need);
char    *cml_expr_cut_text (const CmlExprCtx *ctx, const CmlExpr *e, GString *text,
                            gsize max_chars);

G_END_DECLS
