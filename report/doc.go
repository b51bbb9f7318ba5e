// Package report renders experiment results as tables ready to paste into a
// paper or a README: Markdown with aligned pipes, CSV and JSON, plus the
// number formats of the paper's tables (mean ± std to three decimals,
// parameter counts with thousands separators, seconds).
//
// Progress shows long work on a terminal (a bar) or in a log (plain lines).
//
// A Table holds strings only; callers format numbers with MeanStd, Params
// and Seconds so that every output format shows the same digits.
package report
