package org.apache.spark.sql.bolide

import java.io.File

import org.junit.Test
import org.junit.Assert._

/** The generated documents must match the code (run `make docs` after changing either). */
class DocsSuite {
  private val docs = new File("../docs")

  @Test def supportMatrixIsCurrent(): Unit = {
    assertEquals("docs/supported.md is stale: run `make docs`",
      GenerateDocs.supported(), GenerateDocs.read(new File(docs, "supported.md")))
  }

  @Test def functionTableIsCurrent(): Unit = {
    assertEquals("docs/functions.md is stale: run `make docs`",
      GenerateDocs.functions(), GenerateDocs.read(new File(docs, "functions.md")))
  }

  @Test def settingsReferenceIsCurrent(): Unit = {
    val current = GenerateDocs.read(new File(docs, "configuration.md"))
    assertEquals("docs/configuration.md is stale: run `make docs`",
      GenerateDocs.configuration(current), current)
  }
}
