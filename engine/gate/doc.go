// Package gate is Gate C's rule, defined once: the classes a citation
// status counts in, the three rates and their thresholds, the verdict
// (also while statuses are still arriving), and the one line that tells
// people the outcome. The batch tool, the run pipeline, the reports and
// the terminal UI all ask it; nothing else compares a rate with a
// threshold. It depends only on the record of a status.
package gate
