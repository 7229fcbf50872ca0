package org.apache.spark.sql.bolide

import java.io.File
import java.nio.file.{Files, StandardCopyOption}

import org.apache.spark.internal.Logging

/**
 * Extracts the Go engine from the plugin JAR (under bolide/native/<os>-<arch>/) and loads it once
 * per JVM, from this class loader, so JNI_OnLoad finds the plugin's classes. Never preload
 * libjsig and never use -Xrs (shared/go-in-jvm.md).
 */
object NativeLoader extends Logging {
  val AdapterVersion: String = "0.1.0-SNAPSHOT"

  @volatile private var loaded: Either[Throwable, String] = null

  private def platform: String = {
    val os = System.getProperty("os.name").toLowerCase match {
      case n if n.contains("linux") => "linux"
      case n if n.contains("mac") => "darwin"
      case n => n.replaceAll("\\s+", "")
    }
    val arch = System.getProperty("os.arch") match {
      case "amd64" | "x86_64" => "amd64"
      case "aarch64" | "arm64" => "arm64"
      case a => a
    }
    s"$os-$arch"
  }

  private def libraryName: String =
    if (platform.startsWith("darwin")) "libbolide.dylib" else "libbolide.so"

  /** Loads the library (once) and returns its version, or throws why it cannot be loaded. */
  def load(): String = synchronized {
    if (loaded == null) {
      loaded = try Right(doLoad()) catch { case t: Throwable => Left(t) }
    }
    loaded match {
      case Right(v) => v
      case Left(t) => throw new IllegalStateException(s"Bolide native library not available: ${t.getMessage}", t)
    }
  }

  /** True when the library is loaded (loading it if needed); logs why not otherwise. */
  def isAvailable: Boolean = try { load(); true } catch {
    case t: Throwable =>
      logWarning(s"Bolide disabled: ${t.getMessage}")
      false
  }

  /** The file the library was loaded from (the JAR's copy is deleted once loaded). */
  @volatile private[bolide] var loadedFrom: File = _

  private def doLoad(): String = {
    val override_ = System.getenv("BOLIDE_NATIVE_LIB")
    val file = if (override_ != null && override_.nonEmpty) {
      new File(override_)
    } else {
      val resource = s"bolide/native/$platform/$libraryName"
      val in = getClass.getClassLoader.getResourceAsStream(resource)
      if (in == null) {
        throw new UnsatisfiedLinkError(s"no native library for $platform in the plugin JAR ($resource)")
      }
      val dir = Files.createTempDirectory("bolide-")
      val f = dir.resolve(libraryName).toFile
      try Files.copy(in, f.toPath, StandardCopyOption.REPLACE_EXISTING) finally in.close()
      // The JVM deletes in the reverse order of registration: the file, then its directory.
      dir.toFile.deleteOnExit()
      f.deleteOnExit()
      f
    }
    System.load(file.getAbsolutePath)
    loadedFrom = file
    if (override_ == null || override_.isEmpty) {
      // The loaded library stays mapped once its file is gone (Linux, macOS), so the copy is removed
      // now: an executor killed by its cluster manager runs no exit hooks and would leave it behind.
      file.delete()
      file.getParentFile.delete()
    }
    val v = NativeLib.version()
    if (v != AdapterVersion) {
      throw new IllegalStateException(s"native library version $v differs from the adapter's $AdapterVersion")
    }
    NativeLib.setJavaVersion(Runtime.version().feature())
    NativeLib.setZoneIds(java.time.ZoneId.getAvailableZoneIds.toArray(Array.empty[String]).sorted.mkString("\n"))
    logInfo(s"Bolide native engine $v loaded from $file")
    v
  }
}
