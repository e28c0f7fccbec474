package seed

// The word lists are those of the benchmark anchor's data script
// (bench/data.sql), so that searches such as "ander" find a
// similar share of rows in both data sets.
var (
	firstNames = [...]string{
		"Anders", "Johan", "Karl", "Lars", "Per", "Erik", "Mikael", "Peter", "Jan", "Hans",
		"Thomas", "Daniel", "Fredrik", "Stefan", "Magnus", "Mattias", "Alexander", "Andreas", "Niklas", "Jonas",
		"Oskar", "Gustav", "Leander", "Viktor", "Emil", "Maria", "Anna", "Margareta", "Elisabeth", "Eva",
		"Kristina", "Birgitta", "Karin", "Marie", "Ingrid", "Linnéa", "Sara", "Emma", "Kerstin", "Lena",
		"Helena", "Johanna", "Sofia", "Elin", "Ulla", "Astrid", "Ebba", "Maja", "Agnes", "Saga",
	}
	lastNames = [...]string{
		"Andersson", "Johansson", "Karlsson", "Nilsson", "Eriksson", "Larsson", "Olsson", "Persson", "Svensson", "Gustafsson",
		"Pettersson", "Jonsson", "Jansson", "Hansson", "Bengtsson", "Jönsson", "Lindberg", "Jakobsson", "Magnusson", "Lindström",
		"Olofsson", "Lindqvist", "Lindgren", "Berg", "Axelsson", "Bergström", "Lundberg", "Lind", "Lundgren", "Lundqvist",
		"Mattsson", "Berglund", "Fredriksson", "Sandberg", "Henriksson", "Forsberg", "Sjöberg", "Wallin", "Engström", "Eklund",
		"Danielsson", "Håkansson", "Lundin", "Björk", "Bergman", "Gunnarsson", "Holm", "Wikström", "Samuelsson", "Isaksson",
		"Fransson", "Bergqvist", "Nyström", "Holmberg", "Arvidsson", "Löfgren", "Söderberg", "Nyberg", "Blomqvist", "Claesson",
		"Mårtensson", "Sandström", "Åberg", "Ekström", "Sundberg", "Hedlund", "Sjögren", "Strand", "Falk", "Öberg",
	}
	companySuffixes = [...]string{
		"Bygg", "Transport", "Konsult", "Fastigheter", "Handel", "El", "Måleri", "Redovisning", "Restaurang", "VVS",
		"Städ", "Data", "Design", "Motor", "Trädgård",
	}
	streets = [...]string{
		"Storgatan", "Drottninggatan", "Kungsgatan", "Vasagatan", "Skolgatan", "Kyrkogatan", "Järnvägsgatan", "Parkvägen",
		"Björkvägen", "Ekvägen", "Tallvägen", "Sjövägen", "Ringvägen", "Industrigatan", "Nygatan", "Västra Vägen",
		"Östra Långgatan", "Bruksgatan", "Hamngatan", "Götgatan",
	}
	cities = [...]string{
		"Stockholm", "Göteborg", "Malmö", "Uppsala", "Västerås", "Örebro", "Linköping", "Helsingborg", "Jönköping", "Norrköping",
		"Lund", "Umeå", "Gävle", "Borås", "Södertälje", "Eskilstuna", "Halmstad", "Växjö", "Karlstad", "Sundsvall",
	}
	clientNames = [...]string{
		"Sundsvall Energi AB", "Hemfrid Service AB", "Göta Bredband AB", "Mälardalens Bostäder AB", "Norrtälje Tandvård AB",
		"Skåne Hyrmaskiner AB", "Västkust Fiber AB", "Upplands Elnät AB", "Dalarnas Gym AB", "Östgöta Försäkring AB",
		"Halland Fastighetsservice AB", "Jämtland Handel AB", "Kalmar Tidning AB", "Värmlands Vatten AB", "Gotlands Hamn AB",
		"Blekinge Bilverkstad AB", "Lapplands Resor AB", "Örebro Parkering AB", "Söderhamns Måleri AB", "Vättern Fiske AB",
	}
	articleNames = [...]string{
		"Konsulttimme", "Serviceavgift", "Material", "Abonnemang", "Frakt", "Licens",
		"Installation", "Support", "Hyra", "Reservdelar",
	}
	itemDescriptions = [...]string{
		"Faktura för tjänster", "Faktura för varor", "Månadsavgift", "Slutfaktura", "Delfaktura",
	}
	withdrawComments = [...]string{
		"Återkallad av klient", "Betalningsplan överenskommen direkt med klienten", "Fel gäldenär",
		"Tvist om fakturan", "Krediterad av klienten",
	}
)

// asciiFold spells Swedish letters without diacritics, for e-mail addresses.
func asciiFold(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch r {
		case 'å', 'ä':
			r = 'a'
		case 'Å', 'Ä':
			r = 'A'
		case 'ö':
			r = 'o'
		case 'Ö':
			r = 'O'
		case 'é':
			r = 'e'
		case 'É':
			r = 'E'
		case ' ':
			continue
		}
		out = append(out, r)
	}
	return string(out)
}
