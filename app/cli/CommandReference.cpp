#include "cli/CommandReference.h"

#include "cli/RenderCommand.h"
#include "questions/CommandOptions.h"
#include "questions/OptionValues.h"

#include <cctype>
#include <iostream>
#include <sstream>

namespace memlens {

namespace {

std::string takesText(const CommandOption &option)
{
    switch (option.kind) {
    case OptionKind::Flag: return "no value";
    case OptionKind::Integer:
    case OptionKind::Choice: return optionTakes(option);
    case OptionKind::Number: return "a number";
    case OptionKind::Text: return "text";
    case OptionKind::Moment: return "peak, oom, end or an event number";
    }
    return {};
}

void writeCommand(std::ostringstream &out, const CommandSpec &spec)
{
    out << "## memlens " << spec.name << "\n\n";
    for (const CommandForm &form : spec.forms) {
        out << "```\n" << commandUsage(spec, form, std::string::npos) << "\n```\n\n";
        std::string about(form.about);
        for (char &c : about)
            c = c == '\n' ? ' ' : c;
        if (!about.empty())
            about[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(about[0])));
        out << about << ".\n\n";
    }
    if (spec.name == "render")
        out << "VIEW: " << renderViewNames(", ") << ".\n\n";
    out << "| option | takes | what |\n|---|---|---|\n";
    for (const CommandOption &option : spec.options) {
        std::string flag = flagOf(option.name);
        if (!option.value.empty())
            flag += " " + std::string(option.value);
        std::string takes = takesText(option), help = optionHelp(option);
        for (std::string *cell : {&flag, &takes, &help}) {
            for (size_t at = cell->find('|'); at != std::string::npos; at = cell->find('|', at + 2))
                cell->replace(at, 1, "\\|");
        }
        out << "| `" << flag << "` | " << takes << " | " << help << (option.mcp ? "" : " (not an MCP argument)") << " |\n";
    }
    out << "\n";
}

} // namespace

std::string commandReferenceMarkdown()
{
    std::ostringstream out;
    out << "# Command line reference\n\n"
           "Made from the option table (`parsers/questions/CommandOptions.cpp`) by `memlens help --markdown`;\n"
           "`tst_cli::referenceIsTheTable` fails when this file differs from it. The MCP server's tools take the\n"
           "same options under the same names, `_` for `-`. `memlens COMMAND --help` prints one command's part.\n"
           "Exit codes: 0 done, 1 a file could not be read, 2 wrong usage, 3 (diff) over a --fail-if limit.\n\n";
    for (const CommandSpec &spec : commandSpecs())
        writeCommand(out, spec);
    out << "## memlens mcp\n\n```\nmemlens mcp [--root DIR]...\n```\n\n"
           "A Model Context Protocol server on stdin/stdout for coding agents, over files below the --root directories\n"
           "(default: the current one).\n";
    return out.str();
}

int runReferenceCommand()
{
    std::cout << commandReferenceMarkdown();
    return 0;
}

} // namespace memlens
