#pragma once
// Each command's assembly: the text CLI11 bound to its rows (OptionValues) -> its validated
// struct (application/command.hpp). Every mistake is a UsageError (BadValue for a value that
// does not parse) naming its flag. cli.cpp holds the CLI11 frame and calls these.
#include "application/command.hpp"
#include "option_values.hpp"

namespace fdbench::cli {

app::SuiteCommand suite_command(const OptionValues& values);
app::OpenCommand open_command(const OptionValues& values);
app::SocketCommand socket_command(const OptionValues& values);
app::AcceptCommand accept_command(const OptionValues& values);
app::TuneCommand tune_command(const OptionValues& values);
app::CleanCommand clean_command(const OptionValues& values);
app::EnvCommand env_command(const OptionValues& values);
app::CompareCommand compare_command(const OptionValues& values);
app::TraceCommand trace_command(const OptionValues& values);
app::ReportCommand report_command(const OptionValues& values);
app::HistoryCommand history_command(const OptionValues& values);
app::PregrowCommand pregrow_command(const OptionValues& values);
app::ServerCommand server_command(const OptionValues& values);

}  // namespace fdbench::cli
