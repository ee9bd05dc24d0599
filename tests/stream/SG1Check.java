// Independent cross-check of yabench-sg1: the schedule written from the
// description in pytest_rspbench/stream/yabench.py, drawing from the real
// java.util.Random and formatting with Java's own "%.1f".
// Usage: java SG1Check.java STATIONS INTERVAL DURATION SEED MIN MAX [...]
// (one group of six arguments per stream; the streams are printed one after
// the other, each followed by a line "#END").
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

public class SG1Check {
    public static void main(String[] args) {
        for (int i = 0; i + 5 < args.length; i += 6) {
            System.out.print(generate(
                Integer.parseInt(args[i]), Long.parseLong(args[i + 1]),
                Long.parseLong(args[i + 2]), new Random(Long.parseLong(args[i + 3])),
                Integer.parseInt(args[i + 4]), Integer.parseInt(args[i + 5])));
            System.out.print("#END\n");
        }
    }

    static String generate(int stations, long interval, long duration, Random random,
                           int min, int max) {
        List<long[]> initial = new ArrayList<>();
        for (int id = 0; id < stations; id++) {
            initial.add(new long[] {random.nextInt((int) interval), id});
        }
        initial.sort(Comparator.comparingLong(s -> s[0]));  // List.sort is stable
        LinkedList<long[]> queue = new LinkedList<>(initial);
        String ssw = "http://knoesis.wright.edu/ssw/";
        String om = "http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#";
        String weather = "http://knoesis.wright.edu/ssw/ont/weather.owl#";
        String type = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
        StringBuilder out = new StringBuilder();
        long t = 0;
        while (t <= duration) {
            long[] station = queue.removeFirst();
            float value = random.nextInt(max - min) + min;
            String obs = "<" + ssw + "Observation_AirTemperature_A" + station[1] + "_" + t + ">";
            String data = "<" + ssw + "MeasureData_AirTemperature_A" + station[1] + "_" + t + ">";
            String stamp = " \"" + t + "\" .\n";
            out.append(obs).append(" <" + type + "> <" + weather + "TemperatureObservation>").append(stamp);
            out.append(obs).append(" <" + om + "observedProperty> <" + weather + "_AirTemperature>").append(stamp);
            out.append(obs).append(" <" + om + "procedure> <" + ssw + "System_A" + station[1] + ">").append(stamp);
            out.append(obs).append(" <" + om + "result> ").append(data).append(stamp);
            out.append(data).append(" <" + type + "> <" + om + "MeasureData>").append(stamp);
            out.append(data).append(" <" + om + "floatValue> ")
                .append(String.format(Locale.ENGLISH, "%.1f", value))
                .append("^^<http://www.w3.org/2001/XMLSchema#float>").append(stamp);
            out.append(data).append(" <" + om + "uom> <" + weather + "fahrenheit>").append(stamp);
            station[0] += interval;
            queue.addLast(station);
            t = queue.getFirst()[0];
        }
        return out.toString();
    }
}
