#include "framework/ledger/ledger_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "framework/ledger/internal/escape.h"
#include "framework/ledger/ledger_file.h"

namespace aftershock::ledger {
namespace {

bool ValidHeaderName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<LedgerStream> LedgerStream::Open(const std::string& path, const LedgerHeader& header,
                                                 std::chrono::milliseconds flush_interval) {
  std::string head = std::string(kLedgerFileVersionLine) + "\n";
  for (const auto& [name, value] : header) {
    if (!ValidHeaderName(name)) throw LedgerFileError(path + ": header name '" + name + "' is not [a-z0-9._-]+");
    head += "# " + name + "=" + internal::EscapeField(value) + "\n";
  }
  head += std::string(kLedgerFileColumns) + "\n";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw LedgerFileError(path + ": cannot open for writing: " + std::strerror(errno));
  if (flush_interval <= std::chrono::milliseconds(0) || flush_interval > std::chrono::seconds(1)) {
    flush_interval = std::chrono::milliseconds(200);
  }
  std::shared_ptr<LedgerStream> stream(new LedgerStream(path, fd, flush_interval));
  {
    std::lock_guard<std::mutex> lock(stream->write_mu_);
    stream->WriteAll(head);
    if (!stream->write_error_.empty()) throw LedgerFileError(stream->write_error_);
  }
  stream->writer_ = std::thread([s = stream.get()] { s->WriterLoop(); });
  return stream;
}

LedgerStream::LedgerStream(std::string path, int fd, std::chrono::milliseconds flush_interval)
    : path_(std::move(path)), fd_(fd), flush_interval_(flush_interval) {}

LedgerStream::~LedgerStream() {
  try {
    Close();
  } catch (...) {
    // The error was reported by an explicit Close(), or nobody asked.
  }
}

void LedgerStream::Append(const Promise& promise) {
  std::string line = FormatLedgerRecord(promise);
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  buffer_ += line;
  ++promises_;
}

void LedgerStream::Append(const IndeterminatePromise& promise) {
  std::string line = FormatLedgerRecord(promise);
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  buffer_ += line;
  ++indeterminate_;
}

void LedgerStream::WriteAll(const std::string& text) {
  std::size_t done = 0;
  // Bounded: each pass writes at least one byte or gives up (EINTR retried at most 100 times).
  int interrupted = 0;
  while (done < text.size() && write_error_.empty()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR && ++interrupted < 100) continue;
    if (n <= 0) {
      write_error_ = path_ + ": write failed: " + std::strerror(errno);
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

void LedgerStream::WriterLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, flush_interval_, [this] { return stop_; });
    std::string chunk;
    chunk.swap(buffer_);
    lock.unlock();
    if (!chunk.empty()) {
      std::lock_guard<std::mutex> w(write_mu_);
      WriteAll(chunk);
    }
    lock.lock();
  }
}

void LedgerStream::Close() {
  std::string rest;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) {
      std::lock_guard<std::mutex> w(write_mu_);
      if (!write_error_.empty()) throw LedgerFileError(write_error_);
      return;
    }
    closed_ = true;
    stop_ = true;
  }
  cv_.notify_all();
  if (writer_.joinable()) writer_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    rest.swap(buffer_);
    rest += "# end acknowledged=" + std::to_string(promises_) + " indeterminate=" + std::to_string(indeterminate_) + "\n";
  }
  std::lock_guard<std::mutex> w(write_mu_);
  WriteAll(rest);
  if (fd_ >= 0 && ::close(fd_) != 0 && write_error_.empty()) {
    write_error_ = path_ + ": close failed: " + std::strerror(errno);
  }
  fd_ = -1;
  if (!write_error_.empty()) throw LedgerFileError(write_error_);
}

std::uint64_t LedgerStream::promises() const {
  std::lock_guard<std::mutex> lock(mu_);
  return promises_;
}

std::uint64_t LedgerStream::indeterminate() const {
  std::lock_guard<std::mutex> lock(mu_);
  return indeterminate_;
}

}  // namespace aftershock::ledger
