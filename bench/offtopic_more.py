"""A second set of off-topic queries per judged collection: a larger pool to fit the relevance on.

Written by hand in one sitting, after bench/offtopic.py's set and before any result of the relevance
they are fitted for was seen, in the same forms: news leads and everyday questions for Lee, the
pydoc templates' questions on other subjects (and a few programming near misses), API identifiers
of other ecosystems and CPython-style names no entry names for news. They are never edited to suit a
result; `checked` refuses a news query that some entry does name (the collection's own judgment
rule), which would make it on-topic.

Unlike the first set, this one is tuning data only: every query of it may be fitted on, and none is
reported as abstention (bench/quality.py reports the first set's test two thirds).
"""

from __future__ import annotations

from . import offtopic
from .datasets import Collection

__all__ = ["MORE_OFF_TOPIC", "more_off_topic"]

MORE_OFF_TOPIC: dict[str, tuple[str, ...]] = {
    "lee": (
        "Marine biologists in Monterey have filmed a giant squid feeding in deep water.",
        "A bakery chain in Lyon has won a national prize for its croissants.",
        "A rare white rhinoceros calf has been born at a zoo in the Czech Republic.",
        "The opera house in Vienna has cancelled a premiere after its lead tenor lost his voice.",
        "Archaeologists in Peru have uncovered a pre-Inca tomb filled with woven textiles.",
        "A Swiss watchmaker has launched a timepiece that winds itself from body heat.",
        "Ice cream sales in Scandinavia have doubled during an unusual summer heatwave.",
        "A designer in Finland has built a sauna that folds into a backpack.",
        "Volunteers counted more than two thousand monarch butterflies at a Mexican reserve.",
        "A board game club in Leeds has set a record for the longest game of Monopoly.",
        "A skateboarding park built from recycled shipping containers has opened in Copenhagen.",
        "Wine makers in Burgundy expect a small but excellent vintage this year.",
        "A jazz pianist from New Orleans has recorded an album of Bach fugues.",
        "Doctors recommend that office workers stand up and stretch every half hour.",
        "A children's author has published her hundredth book about a talking hedgehog.",
        "Surfers in Portugal rode waves taller than a ten-storey building.",
        "A Dutch florist has bred a tulip that is almost black.",
        "Cheese makers in the Alps are ageing their wheels in a disused railway tunnel.",
        "A robot vacuum cleaner has learned to avoid socks left on the floor.",
        "A photographer has spent ten years documenting lighthouses along the Scottish coast.",
        "How do I clean a cast iron skillet?",
        "What is the best way to fold a fitted sheet?",
        "How long do I boil an egg for a runny yolk?",
        "How do I get rid of fruit flies in the kitchen?",
        "Which type of rice is best for risotto?",
        "How do I sharpen a kitchen knife with a whetstone?",
        "What should I pack for a weekend camping trip?",
        "How do I fix a squeaky door hinge?",
        "How often should I replace my toothbrush?",
        "What is the difference between a latte and a cappuccino?",
        "How do I keep cut flowers fresh for longer?",
        "Which yoga poses help with lower back pain?",
        "How do I make fresh pasta without a machine?",
        "What is the best way to learn to juggle?",
        "How do I unclog a bathroom sink?",
        "How do I care for a leather jacket?",
        "Which card games can I play on my own?",
        "How do I stop my glasses from fogging up?",
        "What is a good first fish for an aquarium?",
        "How do I press flowers in a book?",
    ),
    "pydoc": (
        "How does a refrigerator work?",
        "What are volcanoes?",
        "What is a credit score?",
        "How do I go about brewing beer?",
        "How does the heart work?",
        "What is a crescendo?",
        "How do I go about tiling a bathroom?",
        "What are earthquakes?",
        "How do rainbows work?",
        "What is a limerick?",
        "How does compound interest work?",
        "What are antibiotics?",
        "How do I go about planting garlic?",
        "What is a marinade?",
        "How does an electric guitar work?",
        "What is a time signature?",
        "How do I go about waxing skis?",
        "What are hurricanes?",
        "How does the printing press work?",
        "What is a sonata?",
        "How does jet propulsion work?",
        "What are coral reefs?",
        "How do I go about changing a tyre?",
        "What is an annuity?",
        "How does yoghurt fermentation work?",
        "What is a pas de deux?",
        "How do I go about grafting roses?",
        "What are constellations?",
        "How does a microwave oven work?",
        "What is a caucus?",
        # near misses: programming, but not Python's language reference
        "How does the Go scheduler work?",
        "What are Haskell monads?",
        "How do C++ templates work?",
        "What is a Bash pipeline?",
        "How does the Ruby method lookup work?",
        "What are Swift optionals?",
        "How do I go about writing a Makefile?",
        "What is a Terraform module?",
        "How does the JVM class loader work?",
        "What are Elixir processes?",
    ),
    "news": (
        "numpy.random.default_rng",
        "pandas.read_csv",
        "torch.tensor",
        "django.db.models.Model",
        "flask.request",
        "requests.get",
        "sklearn.pipeline.Pipeline",
        "keras.layers.Dense",
        "boto3.resource",
        "java.lang.String",
        "React.useEffect",
        "lodash.throttle",
        "fmt.Sprintf",
        "std::unique_ptr",
        "np.zeros_like",
        "plt.subplots",
        "scipy.sparse.csr_matrix",
        "jax.jit",
        "pydantic.Field",
        "sqlalchemy.create_engine",
        "fastapi.Depends",
        "celery.Celery",
        "redis.StrictRedis",
        "kafka.KafkaConsumer",
        "nltk.word_tokenize",
        "cv2.VideoCapture",
        "Console.ReadLine",
        "window.addEventListener",
        "serde::Deserialize",
        "tokio::select",
        "Vue.createApp",
        "express.static",
        "android.app.Activity",
        "gl.bindBuffer",
        # near misses: CPython-style names no entry names
        "PyTuple_Reverse",
        "PySet_Intersect",
        "PyLong_FromRoman",
        "asyncio.gather_forever",
        "os.path.tidy",
        "functools.memoize_async",
    ),
}


def more_off_topic(coll: Collection) -> Collection:
    """`coll`'s documents with the second set of off-topic queries (ids `more00`...; no judgments)."""
    return offtopic.with_queries(coll, MORE_OFF_TOPIC, "more")


def checked(coll: Collection) -> list[str]:
    """The second set's news queries that some entry of `coll` names whole (none should)."""
    return offtopic.checked(coll, MORE_OFF_TOPIC)
