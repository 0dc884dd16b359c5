package io.macrodb.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The progress bar turns itself off where stderr is not a terminal. */
class ConsoleProgressTest {

    @Test
    void terminalDevicesAreToldFromFilesAndPipes() {
        assertTrue(ConsoleProgress.isTerminalDevice("/dev/pts/3"));
        assertTrue(ConsoleProgress.isTerminalDevice("/dev/tty1"));
        assertTrue(ConsoleProgress.isTerminalDevice("/dev/ttyS0"));
        assertTrue(ConsoleProgress.isTerminalDevice("/dev/console"));
        assertFalse(ConsoleProgress.isTerminalDevice("pipe:[123456]"));
        assertFalse(ConsoleProgress.isTerminalDevice("socket:[42]"));
        assertFalse(ConsoleProgress.isTerminalDevice("/dev/null"));
        assertFalse(ConsoleProgress.isTerminalDevice("/home/me/bench.log"));
        assertFalse(ConsoleProgress.isTerminalDevice("/dev/tty-log.txt"));
    }

    @Test
    void noBarWhereStderrIsNotATerminal() {
        // surefire's forked JVM writes stderr into a pipe: the fallback listener is used, not a bar
        BenchListener lines = new BenchListener() {};
        if (!ConsoleProgress.stderrIsTerminal()) assertSame(lines, ConsoleProgress.onStderr(lines));
        else assertTrue(ConsoleProgress.onStderr(lines) instanceof ConsoleProgress);
    }
}
