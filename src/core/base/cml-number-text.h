/* cml-number-text.h — a double as the characters printf's "%.17g" writes in the C locale,
 * without printf (the rows of a run are mostly this).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

/* enough for "-1.2345678901234567e-308" and its terminating NUL */
#define CML_NUMBER_TEXT_SIZE 32

/* Writes into BUF (CML_NUMBER_TEXT_SIZE bytes) exactly what snprintf (BUF, …, "%.17g", V)
 * writes in the C locale ("inf", "-inf", "nan" or "-nan" too) and returns its length. */
int cml_number_text_g17 (char *buf, double v);
