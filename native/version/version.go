// Package version holds the engine version, checked against the JVM adapter's at load time.
package version

// Version is the Bolide release; the JVM side refuses a native library of another version.
const Version = "0.1.0-SNAPSHOT"
