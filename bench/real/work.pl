# Interpreter workload of the realistic benchmark (bench/real_inputs.sh): perl builds a text,
# counts its words in a hash, rewrites it with regular expressions, sorts and formats the
# counts. Deterministic.
use strict;
use warnings;
my $x = 12345;
sub word {
	my $s = '';
	$x = ($x * 1103515245 + 12345) % 2147483648;
	my $len = 3 + $x % 7;
	for (1 .. $len) {
		$x = ($x * 1103515245 + 12345) % 2147483648;
		$s .= chr(97 + ($x >> 16) % 26);
	}
	return $s;
}
my @w = map { word() } 1 .. 2000;
my $text = join ' ', map { $w[($_ * 7919) % @w] } 1 .. 24000;
my %n;
$n{$_}++ for split /\s+/, $text;
(my $t = $text) =~ s/([aeiou])([a-z]*)/\U$1\E$2/g;
my @caps = $t =~ /\b([A-Z][a-z]{2,4})\b/g;
my @top = (sort { $n{$b} <=> $n{$a} || $a cmp $b } keys %n)[0 .. 9];
my $lines = join "\n", map { sprintf "%-12s %6d %5.2f%%", $_, $n{$_}, 100 * $n{$_} / 24000 }
	sort keys %n;
printf "%d distinct, %d capitalised, %d bytes, top %s\n", scalar(keys %n), scalar(@caps),
	length $lines, join ',', map { "$_=$n{$_}" } @top;
