package io.macrodb.cli;

import io.macrodb.cli.bench.BenchCommand;
import io.macrodb.cli.demo.DemoCommand;
import io.macrodb.cli.serve.ServeCommand;
import io.macrodb.jdbc.MacroDriver;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.sql.SQLException;

/**
 * The {@code macrodb} command line. Each job is a subcommand class registered in
 * {@link Command#subcommands()} below; this class only wires them into picocli and decides how
 * errors are shown.
 *
 * <p>Exit status: 0 when every check passed, 1 when a check failed or an error stopped the
 * command, 2 for invalid usage.
 */
@Command(name = "macrodb",
        mixinStandardHelpOptions = true,
        versionProvider = MacroDbCli.Version.class,
        description = "MacroDB: one embedded SQL engine, replicated across cores, behind one JDBC URL.",
        subcommands = {DemoCommand.class, BenchCommand.class, ServeCommand.class},
        footer = {"", "Exit status: 0 all checks passed, 1 a check failed or an error stopped the command, 2 invalid usage."})
public final class MacroDbCli {

    /** Reports the version of the MacroDB driver the command line was built with. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override public String[] getVersion() {
            return new String[] {"MacroDB " + MacroDriver.VERSION};
        }
    }

    private MacroDbCli() {}

    /** The command line, ready to {@link CommandLine#execute execute}; tests use it in-process. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new MacroDbCli());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler(MacroDbCli::reportError);
        return cl;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** An error that stopped a command: one line that says what happened, the stack trace only for bugs. */
    private static int reportError(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
        var err = cl.getErr();
        if (e instanceof SQLException sql) {
            err.println(cl.getCommandName() + ": database error (SQLState " + sql.getSQLState() + "): " + sql.getMessage());
        } else {
            err.println(cl.getCommandName() + ": unexpected error, please report it:");
            e.printStackTrace(err);
        }
        err.flush();
        return 1;
    }
}
