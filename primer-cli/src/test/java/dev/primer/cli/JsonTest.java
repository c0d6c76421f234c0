package dev.primer.cli;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JsonTest {

    @Test void escapesQuotesBackslashesAndControlCharacters() {
        String nasty = "a\"b\\c\nd\re\tf\bg\fh\u0001i\u001fj\u2028k/";
        assertEquals("\"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0001i\\u001fj\\u2028k/\"", Json.quote(nasty));
        Map<String, Object> back = MiniJson.object(Json.object().put("s", nasty).put("k\"ey", 1).toString());
        assertEquals(nasty, back.get("s"));
        assertTrue(back.containsKey("k\"ey"));
    }

    @Test void keepsNonAsciiAndPairedSurrogatesButEscapesLoneOnes() {
        assertEquals("\"µs × π 😀\"", Json.quote("µs × π 😀"));
        assertEquals("\"x\\ud800y\"", Json.quote("x\ud800y"));
        assertEquals("\"\\udc00\"", Json.quote("\udc00"));
    }

    @Test void writesEveryValueKind() {
        Json j = Json.object()
                .put("s", "text").put("i", 42).put("l", 1L << 40).put("d", 0.5).put("f", 1.5f)
                .put("t", true).put("n", null)
                .put("list", List.of(1, 2, 3)).put("map", Map.of("k", "v"))
                .put("nested", Json.object().put("x", List.of(Json.object().put("y", "z"))))
                .put("longs", new long[] {1, 2}).put("enum", Thread.State.NEW)
                .put("nan", Double.NaN).put("inf", Double.NEGATIVE_INFINITY);
        for (String text : List.of(j.toString(), j.compact())) {
            Map<String, Object> m = MiniJson.object(text);
            assertEquals("text", m.get("s"));
            assertEquals(42.0, m.get("i"));
            assertEquals((double) (1L << 40), m.get("l"));
            assertEquals(0.5, m.get("d"));
            assertEquals(1.5, m.get("f"));
            assertEquals(Boolean.TRUE, m.get("t"));
            assertTrue(m.containsKey("n"));
            assertNull(m.get("n"));
            assertEquals(List.of(1.0, 2.0, 3.0), m.get("list"));
            assertEquals(Map.of("k", "v"), m.get("map"));
            assertEquals(List.of(1.0, 2.0), m.get("longs"));
            assertEquals("NEW", m.get("enum"));
            assertEquals("NaN", m.get("nan"));
            assertEquals("-Infinity", m.get("inf"));
        }
    }

    @Test void compactHasNoWhitespaceAndPrettyIsIndented() {
        Json j = Json.object().put("a", 1).put("b", Json.object().put("c", "d e"));
        assertEquals("{\"a\":1,\"b\":{\"c\":\"d e\"}}", j.compact());
        assertEquals("{\n  \"a\": 1,\n  \"b\": {\n    \"c\": \"d e\"\n  }\n}", j.toString());
        assertEquals("{}", Json.object().toString());
        assertEquals("[]", Json.valueToString(List.of()));
    }

    @Test void keepsInsertionOrderAndReplacesInPlace() {
        Json j = Json.object().put("z", 1).put("a", 2).put("z", 3);
        assertEquals("{\"z\":3,\"a\":2}", j.compact());
        assertTrue(j.has("a"));
        assertFalse(j.has("b"));
    }
}
