/// Scripted clients that fetch like known players, on libcurl.
public enum RangeTapPlay {}
