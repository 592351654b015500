import ArgumentParser

/// `--spec FILE`, listed in every command's help. `SpecArguments` takes it
/// off the command line before parsing (the codecs it adds name options and
/// fill help texts), so this option only documents it.
struct SpecOption: ParsableArguments {
  @Option(
    name: .customLong("spec"),
    help: ArgumentHelp(
      "Add the codec a spec file describes, for this run (repeatable; one named as a built-in replaces it).",
      valueName: "file"))
  var files: [String] = []
}
