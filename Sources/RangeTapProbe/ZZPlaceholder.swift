enum ProbeModulePlaceholderUntilFilesLand {}
