/* subcommands.h - entry points of the tool's subcommands; each gets argv with
 * argv[0] = the subcommand's name and returns the exit status. */
#ifndef ETM_TOOL_SUBCOMMANDS_H
#define ETM_TOOL_SUBCOMMANDS_H

int cmd_check(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);

#endif
