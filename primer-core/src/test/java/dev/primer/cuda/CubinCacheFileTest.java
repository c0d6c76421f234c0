package dev.primer.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NVRTC's disk cache hands the driver only whole entries (no GPU or NVRTC needed): the driver reads
 * a cubin by its header's sizes, so a short or altered file must never reach it.
 */
class CubinCacheFileTest {
    @TempDir
    Path dir;

    private static byte[] image(int length) {
        byte[] bytes = new byte[length];
        new Random(length).nextBytes(bytes);
        return bytes;
    }

    @Test
    void anEntryReadsBackAsItWasWritten() throws IOException {
        Path file = dir.resolve("sub").resolve("k.cubin");
        byte[] image = image(40_001);
        CubinCacheFile.write(file, image);
        assertArrayEquals(image, CubinCacheFile.read(file));
        assertEquals(1, Files.list(file.getParent()).count(), "no temporary file left beside the entry");
    }

    @Test
    void aMissingEntryReadsAsNone() {
        assertNull(CubinCacheFile.read(dir.resolve("absent.cubin")));
    }

    @Test
    void aTruncatedEntryIsDeletedNotLoaded() throws IOException {
        Path file = dir.resolve("k.cubin");
        CubinCacheFile.write(file, image(5000));
        for (int keep : new int[] {4000, 100, 32, 1, 0}) {
            CubinCacheFile.write(file, image(5000));
            byte[] whole = Files.readAllBytes(file);
            Files.write(file, Arrays.copyOf(whole, keep));
            assertNull(CubinCacheFile.read(file), "cut to " + keep + " bytes");
            assertFalse(Files.exists(file), "a damaged entry is deleted (cut to " + keep + " bytes)");
        }
    }

    @Test
    void anAlteredByteIsCaught() throws IOException {
        Path file = dir.resolve("k.cubin");
        byte[] image = image(777);
        for (int at : new int[] {0, 400, 776, 777, 808}) {  // in the image, and in the stored hash
            CubinCacheFile.write(file, image);
            byte[] stored = Files.readAllBytes(file);
            stored[at] ^= 0x10;
            Files.write(file, stored);
            assertNull(CubinCacheFile.read(file), "byte " + at + " altered");
        }
    }

    @Test
    void aCubinWithoutItsHashFromAnOlderCacheIsNotTrusted() throws IOException {
        Path file = dir.resolve("k.cubin");
        Files.write(file, image(2048));
        assertNull(CubinCacheFile.read(file));
    }
}
