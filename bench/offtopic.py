"""Off-topic queries for each judged collection: questions none of its documents answers.

Written by hand before any score was calibrated or any floor chosen, in each collection's own
form (news lead sentences and everyday questions for Lee, the pydoc templates' questions, API
identifiers for news), on topics the collection does not cover. A few are near misses on purpose:
programming questions about other languages for pydoc, CPython-style names that no entry names
for news. They are never edited to suit a result; `checked` only refuses a news query that some
entry does name (by the collection's own judgment rule), which would make it on-topic.

The same hash split as the judged queries (bench/datasets_more.py: split) gives each its tuning
third, on which the calibration was fitted, or its test two thirds, on which abstention is reported.
"""

from __future__ import annotations

from .datasets import Collection
from .datasets_more import naming

__all__ = ["OFF_TOPIC", "off_topic"]

OFF_TOPIC: dict[str, tuple[str, ...]] = {
    "lee": (
        "Sourdough bakers recommend feeding a starter twice a day with equal weights of flour and water.",
        "Researchers have found that emperor penguins huddle in rotating groups to share warmth through the polar winter.",
        "A new smartphone app lets knitters photograph a sweater and download a matching pattern.",
        "The world's heaviest pumpkin weighed more than a tonne at a county fair in California.",
        "A ballet company has staged Swan Lake with its dancers on roller skates.",
        "Cryptocurrency traders watched bitcoin fall below thirty thousand dollars overnight.",
        "A video game about farming alpacas has topped the download charts for a third week.",
        "Astronomers have measured the spin of a black hole at the centre of a distant galaxy.",
        "Gardeners are being urged to plant tomatoes only after the last frost of spring.",
        "A violin maker in Cremona has finished an instrument carved from four-hundred-year-old spruce.",
        "The recipe calls for caramelised onions, thyme and a splash of sherry vinegar.",
        "A chess grandmaster won the tournament after a twelve-hour endgame.",
        "Scientists say octopuses can recognise individual human faces.",
        "A fashion house in Milan showed a collection made entirely from recycled fishing nets.",
        "Beekeepers report record honey yields after a mild winter.",
        "A museum in Oslo has opened an exhibition of medieval Norwegian tapestries.",
        "A startup has begun delivering pizza by drone in suburban Reykjavik.",
        "K-pop fans queued overnight for tickets to the band's stadium concert in Seoul.",
        "The crossword setter has retired after fifty years of puzzles.",
        "Mountain bikers have mapped a new trail through the Dolomites.",
        "How do I descale an espresso machine?",
        "What is the best way to store fresh basil?",
        "How many stitches do I cast on for a beanie?",
        "Which houseplants survive in low light?",
        "How do I change a bicycle inner tube?",
        "What temperature should I roast a chicken at?",
        "How do I teach a puppy to sit?",
        "What are the rules of pickleball?",
        "How do you tune a ukulele?",
        "What is the difference between baking soda and baking powder?",
        "How long should I steep green tea?",
        "Which watercolour paper is best for beginners?",
        "How do I remove a red wine stain from carpet?",
        "What causes the northern lights?",
        "How do I propagate a succulent from a leaf?",
        "What is a good stretching routine for runners?",
        "How do I make cold brew coffee at home?",
        "What is the plot of the opera Turandot?",
        "Which sunscreen is safe for coral reefs?",
        "How often should I water a bonsai tree?",
    ),
    "pydoc": (
        "How does the sourdough fermentation process work?",
        "How do solar panels work?",
        "What are mortgages?",
        "What is a hedge fund?",
        "How do I go about pruning apple trees?",
        "How do I go about descaling a kettle?",
        "What is the offside rule?",
        "How does the immune system work?",
        "What are tectonic plates?",
        "What is a sonnet?",
        "How do vaccines work?",
        "What is a chord progression?",
        "How do I go about training for a marathon?",
        "What are tides?",
        "How does the stock exchange work?",
        "What is a souffle?",
        "How do I go about repotting an orchid?",
        "What is photosynthesis?",
        "How do hybrid cars work?",
        "What are migraines?",
        "What is the electoral college?",
        "How does the kidney work?",
        "What is a haiku?",
        "How do I go about insulating an attic?",
        "What are black holes?",
        "How do hot air balloons work?",
        "What is a sales tax?",
        "How do I go about knitting a scarf?",
        "What are glaciers?",
        "What is a fugue?",
        # near misses: programming, but not Python's language reference
        "How does the Java garbage collector work?",
        "What are CSS selectors?",
        "How does the Rust borrow checker work?",
        "What is a SQL join?",
        "How do JavaScript promises work?",
        "What is a Kubernetes pod?",
        "How do I go about configuring a Git remote?",
        "What is a Docker volume?",
        "How does the TCP handshake work?",
        "What are React hooks?",
    ),
    "news": (
        "numpy.ndarray",
        "pandas.DataFrame",
        "torch.nn.Module",
        "django.http.HttpResponse",
        "flask.Blueprint",
        "requests.Session",
        "sklearn.linear_model",
        "tf.keras.Model",
        "boto3.client",
        "java.util.HashMap",
        "React.useState",
        "lodash.debounce",
        "fmt.Println",
        "std::vector",
        "np.linalg.norm",
        "matplotlib.pyplot.plot",
        "scipy.optimize.minimize",
        "jax.numpy.array",
        "pydantic.BaseModel",
        "sqlalchemy.orm.Session",
        "fastapi.APIRouter",
        "celery.shared_task",
        "redis.Redis",
        "kafka.KafkaProducer",
        "spacy.load",
        "cv2.imread",
        "System.Console.WriteLine",
        "document.getElementById",
        "serde_json::from_str",
        "tokio::spawn",
        "Vue.component",
        "express.Router",
        "android.os.Bundle",
        "gl.drawArrays",
        # near misses: CPython-style names no entry names
        "PyList_SortInPlace",
        "PyDict_MergeDeep",
        "PyUnicode_FromEmoji",
        "asyncio.run_forever_async",
        "os.path.frobnicate",
        "itertools.flatten_deep",
    ),
}


def off_topic(coll: Collection) -> Collection:
    """`coll`'s documents with its off-topic queries instead of its judged ones (no judgments)."""
    return with_queries(coll, OFF_TOPIC, "off")


def with_queries(coll: Collection, table: dict[str, tuple[str, ...]], tag: str) -> Collection:
    """`coll`'s documents with `table`'s queries for it (ids `<tag>00`...; no judgments)."""
    key = coll.name.split("-")[0].split("/")[0]
    queries = {f"{tag}{n:02d}": q for n, q in enumerate(table.get(key, ()))}
    return Collection(
        f"{coll.name.split('/')[0]}-{tag}", coll.docs, queries, {q: {} for q in queries}, {q: "" for q in queries}
    )


def checked(coll: Collection, table: dict[str, tuple[str, ...]] = OFF_TOPIC) -> list[str]:
    """The off-topic queries of `coll` (from `table`) that some document names whole (none should)."""
    key = coll.name.split("-")[0]
    if key != "news":
        return []
    return [q for q in table["news"] if naming(coll.docs, q)]
