#include "framework/config/internal/yaml_documents.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <cstddef>
#include <sstream>
#include <string>

namespace aftershock::config::internal {
namespace {

// Records where each document starts; everything else is ignored.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { last_ = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  const YAML::Mark& last() const { return last_; }

 private:
  YAML::Mark last_ = YAML::Mark::null_mark();
};

std::string StuckMessage(std::string_view text, const YAML::Mark& at) {
  std::string message = "unexpected ";
  if (at.pos >= 0 && static_cast<std::size_t>(at.pos) < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[static_cast<std::size_t>(at.pos)]);
    if (c >= 0x21 && c < 0x7f) {
      message += "'" + std::string(1, static_cast<char>(c)) + "'";
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      message += std::string("byte 0x") + kHex[c >> 4] + kHex[c & 0xf];
    }
  } else {
    message += "end of text";
  }
  return message + " where a node should start (a flow indicator outside [ ] or { }? quote the value)";
}

// Throws at the first document that starts where its predecessor started: the parser made no
// progress and would report that document forever. A text of n bytes has at most n + 1 documents
// that each consume something, so the count is a second bound should the marks ever mislead.
void RejectStuckParse(std::string_view text) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  DocumentStarts starts;
  YAML::Mark previous = YAML::Mark::null_mark();
  std::size_t documents = 0;
  // Syntax errors propagate as they are: LoadAll would meet the same ones with the same marks.
  while (parser.HandleNextDocument(starts)) {
    if (!previous.is_null() && starts.last().pos == previous.pos) {
      throw YAML::ParserException(starts.last(), StuckMessage(text, starts.last()));
    }
    if (++documents > text.size() + 1) {
      throw YAML::ParserException(starts.last(), "the YAML parser stopped advancing");
    }
    previous = starts.last();
  }
}

}  // namespace

std::vector<YAML::Node> LoadAllDocuments(std::string_view text) {
  RejectStuckParse(text);
  return YAML::LoadAll(std::string(text));
}

}  // namespace aftershock::config::internal
