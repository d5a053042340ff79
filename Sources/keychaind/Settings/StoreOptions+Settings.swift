import ArgumentParser
import Foundation

extension StoreOptions {
    /// The one precedence rule: the flag if given, else the environment variable (when set and
    /// not empty), else the configuration file's key, else nil (the caller's default).
    func value(_ setting: Setting, flag: String? = nil) throws -> String? {
        if let flag { return flag }
        if let environment = setting.environment, let value = ProcessInfo.processInfo.environment[environment], !value.isEmpty {
            return value
        }
        guard let key = setting.key else { return nil }
        return try ConfigFile.load(config ?? ProcessInfo.processInfo.environment[Setting.config.environment!])[key]
    }

    /// An integer setting, by the same rule; a value that is not one names the variable and key.
    func int(_ setting: Setting, flag: Int?) throws -> Int? {
        if let flag { return flag }
        guard let text = try value(setting) else { return nil }
        guard let value = Int(text) else {
            throw ValidationError("\(setting.environment ?? "--" + setting.flag)/\(setting.key ?? setting.flag): not an integer")
        }
        return value
    }
}
