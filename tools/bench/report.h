// Printing benchmark results: a human-readable table with the Coulomb / Bullet ratios, or one
// JSON object per line per engine configuration (README.md; the fields: print_json_lines in report.cpp).
#pragma once
#include "runs.h"

#include <string>
#include <vector>

namespace bench {

struct ReportHeader {
  std::string scene;   // scene name
  int bodies = 0;
  double dt = 0.0;     // (unit: s)
  int steps = 0;
  int threads = 1;
  double copy_bandwidth_gbs = 0.0;  // measured in the same run (sweep_cost.h)
  int repeat = 1;                   // each configuration's run: the fastest of this many (--repeat)
};

void print_table(const ReportHeader& h, const std::vector<RunResult>& runs);
void print_json_lines(const ReportHeader& h, const std::vector<RunResult>& runs);
// A markdown table, one row per configuration (tools/bench/run_all joins several scenes').
void print_markdown(const ReportHeader& h, const std::vector<RunResult>& runs);

}  // namespace bench
