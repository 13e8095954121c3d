import Foundation

/// A private folder for one fuzzing process (in /dev/shm when it exists: inputs are written
/// and removed thousands of times a second), removed at exit.
public enum ScratchFolder {
    public static let path: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let path = base + "/healthtrail-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: ScratchFolder.path) }
        return path
    }()

    /// Writes the bytes to `name` inside the folder, replacing what was there; returns the path.
    public static func write(_ bytes: UnsafeRawBufferPointer, to name: String) -> String {
        let file = path + "/" + name
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
        return file
    }
}
