// docs/gates.md and docs/stress.md cannot drift from the code: every built-in gate has a row in the
// table of built-in gates with a budget and default, a red test and a green test, and every test any
// gate table names (the built-in, alert-chain, stress and breaker gates) exists in the sources (TEST,
// TEST_F or TEST_P of that suite and name).
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "framework/gates/gates.h"
#include "gtest/gtest.h"

namespace aftershock::gates {
namespace gates_doc_test {

const std::filesystem::path kSource = AFTERSHOCK_SOURCE_DIR;

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Row {
  std::string budget, red_test, green_test;
};

std::string Unquote(std::string cell) {
  cell.erase(0, cell.find_first_not_of(' '));
  cell.erase(cell.find_last_not_of(' ') + 1);
  if (cell.size() >= 2 && cell.front() == '`' && cell.back() == '`') cell = cell.substr(1, cell.size() - 2);
  return cell;
}

// The rows of the table under "## The built-in gates": gate -> its last three cells.
std::map<std::string, Row> BuiltInTable(const std::string& doc) {
  std::map<std::string, Row> rows;
  const std::string header = "| gate | red when | why | budget (default) | red test | green test |\n";
  const std::size_t at = doc.find(header);
  if (at == std::string::npos) return rows;
  std::istringstream lines(doc.substr(at + header.size()));
  std::string line;
  std::getline(lines, line);  // |---|
  while (std::getline(lines, line) && line.rfind("| `", 0) == 0) {
    const std::string name = line.substr(3, line.find('`', 3) - 3);
    // The last three cells, from the right (the prose cells may hold anything).
    std::vector<std::string> cells;
    std::size_t end = line.size() - 2;  // before the closing " |"
    for (int i = 0; i < 3; ++i) {
      const std::size_t bar = line.rfind(" | ", end);
      cells.push_back(line.substr(bar + 3, end - (bar + 3) + 1));
      end = bar - 1;
    }
    rows[name] = Row{Unquote(cells[2]), Unquote(cells[1]), Unquote(cells[0])};
  }
  return rows;
}

// "Suite.Name" of every TEST, TEST_F and TEST_P in the sources' *_test.cc files.
std::set<std::string> TestsInTheSources() {
  std::set<std::string> tests;
  for (const char* dir : {"framework", "fixtures", "suites", "tools"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(kSource / dir)) {
      const std::string file = entry.path().filename().string();
      if (!entry.is_regular_file() || file.size() < 8 || file.substr(file.size() - 8) != "_test.cc") continue;
      std::istringstream lines(Slurp(entry.path()));
      for (std::string line; std::getline(lines, line);) {
        for (const std::string macro : {"TEST(", "TEST_F(", "TEST_P("}) {
          if (line.rfind(macro, 0) != 0) continue;
          const std::size_t comma = line.find(',', macro.size());
          const std::size_t close = line.find(')', comma);
          if (comma == std::string::npos || close == std::string::npos) continue;
          std::string name = line.substr(comma + 1, close - comma - 1);
          name.erase(0, name.find_first_not_of(' '));
          tests.insert(line.substr(macro.size(), comma - macro.size()) + "." + name);
        }
      }
    }
  }
  return tests;
}

TEST(GatesDocTest, EveryBuiltInGateHasARowWithItsBudgetARedTestAndAGreenTest) {
  const std::map<std::string, Row> rows = BuiltInTable(Slurp(kSource / "docs" / "gates.md"));
  ASSERT_FALSE(rows.empty()) << "docs/gates.md has no table of built-in gates with the expected header";
  for (const std::string& gate : BuiltInGates().names()) {
    const auto it = rows.find(gate);
    if (it == rows.end()) {
      ADD_FAILURE() << "docs/gates.md: built-in gate '" << gate << "' has no row";
      continue;
    }
    EXPECT_FALSE(it->second.budget.empty()) << gate;
    EXPECT_FALSE(it->second.red_test.empty()) << gate;
    EXPECT_FALSE(it->second.green_test.empty()) << gate;
  }
}

struct TestCells {
  std::string gate, red_test, green_test;
};

// Every row of every table whose header ends in "| red test | green test |": its gate and the
// tests in its last two cells. `tables` counts those tables.
std::vector<TestCells> TestColumns(const std::string& doc, int* tables) {
  std::vector<TestCells> rows;
  *tables = 0;
  std::istringstream lines(doc);
  bool in_table = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| gate |", 0) == 0) {
      const std::string tail = "| red test | green test |";
      in_table = line.size() > tail.size() && line.compare(line.size() - tail.size(), tail.size(), tail) == 0;
      if (in_table) ++*tables;
      continue;
    }
    if (!in_table || line.rfind("|---", 0) == 0) continue;
    if (line.rfind("| `", 0) != 0) {
      in_table = false;
      continue;
    }
    const std::size_t last = line.rfind(" | ", line.size() - 3);
    const std::size_t before = line.rfind(" | ", last - 1);
    rows.push_back({line.substr(3, line.find('`', 3) - 3), Unquote(line.substr(before + 3, last - before - 3)),
                    Unquote(line.substr(last + 3, line.size() - 2 - last - 3))});
  }
  return rows;
}

TEST(GatesDocTest, EveryTestTheTablesNameExists) {
  const std::set<std::string> tests = TestsInTheSources();
  ASSERT_GT(tests.size(), 100u);
  // docs/gates.md: the built-in gates and the alert chain's; docs/stress.md: the stress and breaker gates.
  for (const auto& [doc, expected_tables] : {std::pair<std::string, int>{"gates.md", 2}, {"stress.md", 2}}) {
    int tables = 0;
    const std::vector<TestCells> rows = TestColumns(Slurp(kSource / "docs" / doc), &tables);
    EXPECT_EQ(tables, expected_tables) << "docs/" << doc << ": tables of gates with a red and a green test";
    for (const TestCells& row : rows) {
      for (const std::string& test : {row.red_test, row.green_test}) {
        EXPECT_EQ(tests.count(test), 1u) << "docs/" << doc << ": gate '" << row.gate << "' names the test '" << test
                                         << "', which is not a TEST, TEST_F or TEST_P in the sources";
      }
    }
  }
}

}  // namespace gates_doc_test
}  // namespace aftershock::gates
