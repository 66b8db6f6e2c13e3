#pragma once
// A stream buffer that passes what is written through it on, a line at a time, through
// printable(): a string from a results file or a path (a --tree directory's name, a crafted
// document's host or CPU model) cannot reach the terminal as a command of its own (OSC 52
// writes the clipboard, OSC 0 the window title, CSI 2J clears the screen). Newlines pass as
// they are; every other control byte and every byte that is not valid UTF-8 becomes \xNN.
#include <cstddef>
#include <ostream>
#include <streambuf>
#include <string>

#include "model/format.hpp"

namespace fdbench {

class PrintableLines final : public std::streambuf {
 public:
  // `wrap` > 0: a line wider than that many columns is broken at spaces (wrapped()).
  explicit PrintableLines(std::ostream& out, std::size_t wrap = 0) : out_(out), wrap_(wrap) {}
  // A terminal resized: lines from now on are wrapped to `wrap` columns.
  void set_wrap(std::size_t wrap) { wrap_ = wrap; }
  PrintableLines(const PrintableLines&) = delete;
  PrintableLines& operator=(const PrintableLines&) = delete;
  ~PrintableLines() override { pass_on(); }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    if (ch == '\n') {
      pass_on();
      out_ << '\n';
    } else {
      line_ += ch;
    }
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) overflow(traits_type::to_int_type(s[i]));
    return n;
  }
  // A flush passes on the line so far: the table's rows appear as each result is measured.
  int sync() override {
    pass_on();
    out_.flush();
    return out_ ? 0 : -1;
  }

 private:
  void pass_on() {
    if (line_.empty()) return;
    std::string text = printable(line_);
    if (wrap_ > 0 && display_width(text) > wrap_) {
      text = wrapped(text, wrap_);
      text.pop_back();  // the newline that ends the line is the caller's
    }
    out_ << text;
    line_.clear();
  }
  std::ostream& out_;
  std::size_t wrap_;
  std::string line_;
};

}  // namespace fdbench
