package io.macrodb.cli;

public final class MacroDbCli {
    public static void main(String[] args) {
    }
}
