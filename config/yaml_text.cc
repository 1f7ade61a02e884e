// Reading and parsing one YAML file, bounded in size and in work.
//
// yaml-cpp 0.7's YAML::LoadAll never returns on some invalid input: for a file holding
// just "," the parser reports an empty document without consuming the ",", and LoadAll
// appends null documents forever (upstream issue 1040; about 200 MB/s). So the document
// count is checked with the parser itself, at most three documents deep: a document that
// starts where the previous one started has consumed nothing and is an error at that
// position. Only then does YAML::Load (one document) build the node.
#include <sstream>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include "common/file_read.h"
#include "config/parse_internal.h"

namespace rxe::config {
namespace {

/// Records where each document starts; ignores the content.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;

  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

constexpr const char* kSizeLimitHint =
    " (1 MiB), the limit for config and peer files; split peers over several peer_files";

std::string SizeLimitText() {
  return "file is larger than " + std::to_string(kMaxYamlFileBytes) + " bytes" + kSizeLimitHint;
}

/// Checks that `text` holds at most one document the parser can get through.
/// Throws YAML::ParserException on a syntax error.
bool CheckSingleDocument(const std::string& text, const Sink& sink) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts docs;
  for (int i = 0; i < 3 && parser.HandleNextDocument(docs); ++i) {
    const size_t n = docs.starts.size();
    if (n >= 2 && docs.starts[n - 1].pos == docs.starts[n - 2].pos) {
      const YAML::Mark& at = docs.starts[n - 1];
      const std::string c = static_cast<size_t>(at.pos) < text.size()
                                ? std::string(1, text[static_cast<size_t>(at.pos)])
                                : std::string("end of file");
      sink.Error(at, "", "invalid YAML: unexpected \"" + c + "\"");
      return false;
    }
  }
  if (docs.starts.size() > 1) {
    sink.Error(docs.starts[1], "", "more than one YAML document; the file must hold a single document");
    return false;
  }
  return true;
}

}  // namespace

Result<std::string> ReadTextFile(const std::string& path) {
  return ReadRegularFile(path, kMaxYamlFileBytes, kSizeLimitHint);
}

bool ParseYamlText(const std::string& text, const Sink& sink, YAML::Node* out) {
  if (text.size() > kMaxYamlFileBytes) {
    sink.diag->AddRaw(sink.file, sink.diag->FileName(sink.file) + ": " + SizeLimitText());
    return false;
  }
  try {
    if (!CheckSingleDocument(text, sink)) return false;
    *out = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp stops at 2000 levels, but says "bad file".
    sink.Error(e.mark, "", "invalid YAML: nested more than 2000 levels deep");
    return false;
  } catch (const YAML::ParserException& e) {
    sink.Error(e.mark, "", "invalid YAML: " + e.msg);
    return false;
  }
  return true;
}

}  // namespace rxe::config
